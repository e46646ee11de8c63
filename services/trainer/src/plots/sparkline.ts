const BARS = '▁▂▃▄▅▆▇█';

/**
 * A one-line chart of the last `width` values (e.g. reward per step) for the
 * CLI's live summary: `▁▂▄▅▇█`. Missing or non-finite values show as a space;
 * a flat series sits mid-height.
 */
export function sparkline(values: readonly (number | null | undefined)[], width = 24): string {
  const tail = values.slice(-width);
  const finite = tail.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (finite.length === 0) return ' '.repeat(tail.length);
  const lo = Math.min(...finite);
  const hi = Math.max(...finite);
  return tail
    .map((v) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) return ' ';
      if (hi === lo) return BARS[3];
      return BARS[Math.min(BARS.length - 1, Math.floor(((v - lo) / (hi - lo)) * BARS.length))];
    })
    .join('');
}
