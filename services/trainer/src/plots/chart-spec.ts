import type { TopLevelSpec } from 'vega-lite';
import type { MetricsRecord } from '../metrics/step-metrics.ts';
import type { ChartDef } from './chart-defs.ts';

/** One point of a series, in Vega-Lite's long format. */
interface Point {
  step: number;
  series: string;
  /** Position of the series in the chart's list: legend and stack order. */
  rank: number;
  value: number;
}

const WIDTH_PX = 560;
const HEIGHT_PX = 260;
const MAX_POINT_MARKS = 60;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function pointsOf(records: readonly MetricsRecord[], keys: readonly string[], zeroFill: boolean): Point[] {
  const out: Point[] = [];
  for (const r of records) {
    for (const [rank, key] of keys.entries()) {
      const value = num(r[key]) ?? (zeroFill ? 0 : undefined);
      if (value !== undefined) out.push({ step: r.step, series: key, rank, value });
    }
  }
  return out;
}

function bandOf(records: readonly MetricsRecord[], [meanKey, stdKey]: readonly [string, string]) {
  return records.flatMap((r) => {
    const m = num(r[meanKey]);
    const s = num(r[stdKey]);
    return m === undefined || s === undefined ? [] : [{ step: r.step, lo: m - s, hi: m + s }];
  });
}

/**
 * The Vega-Lite spec of one chart over per-step records (sorted by step), or
 * undefined when the log has none of its series yet.
 */
export function chartSpec(def: ChartDef, records: readonly MetricsRecord[], keys: readonly string[]): TopLevelSpec | undefined {
  const series = def.series(keys);
  if (series.length === 0) return undefined;
  // Stages that did not run at a step (e.g. testing) count as 0 there, so the stack stays aligned.
  const points = pointsOf(records, series, def.stacked === true);
  if (points.length === 0) return undefined;
  const x = { field: 'step', type: 'quantitative', title: 'step', axis: { tickMinStep: 1 } } as const;
  const color = { field: 'series', type: 'nominal', title: null, sort: series, legend: { orient: 'bottom', labelLimit: 480, columns: 2 } } as const;
  const layers: NonNullable<Extract<TopLevelSpec, { layer: unknown }>['layer']> = [];
  const band = def.band === undefined ? [] : bandOf(records, def.band);
  if (band.length > 0) {
    layers.push({
      data: { values: band },
      mark: { type: 'area', opacity: 0.2, color: '#4c78a8' },
      encoding: { x, y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' } },
    });
  }
  layers.push(
    def.stacked === true
      ? {
          mark: { type: 'area', line: true },
          encoding: { x, y: { field: 'value', type: 'quantitative', title: def.yTitle, stack: 'zero' }, color, order: { field: 'rank', sort: 'ascending' } },
        }
      : {
          mark: { type: 'line', point: records.length <= MAX_POINT_MARKS },
          encoding: { x, y: { field: 'value', type: 'quantitative', title: def.yTitle, scale: { zero: def.zero === true } }, color },
        },
  );
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: def.title,
    width: WIDTH_PX,
    height: HEIGHT_PX,
    background: 'white',
    data: { values: points },
    layer: layers,
  } as TopLevelSpec;
}
