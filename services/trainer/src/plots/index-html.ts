import type { MetricsRecord } from '../metrics/step-metrics.ts';

/** A rendered chart for the index page. */
export interface ChartEntry {
  file: string;
  title: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const fmt = (v: number | string | null | undefined) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toPrecision(4)) : String(v ?? ''));

/** A static page showing every chart and the latest value of every metric. */
export function indexHtml(title: string, charts: readonly ChartEntry[], last: MetricsRecord | undefined): string {
  const figures = charts.map(
    (c) => `<figure><img src="${escapeHtml(c.file)}" alt="${escapeHtml(c.title)}"><figcaption>${escapeHtml(c.title)}</figcaption></figure>`,
  );
  const rows =
    last === undefined
      ? []
      : Object.entries(last)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td>${escapeHtml(fmt(v))}</td></tr>`);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    '<style>body{font-family:sans-serif;margin:1.5em}main{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}',
    'table{border-collapse:collapse;margin-top:1.5em}td{padding:2px 10px;border-bottom:1px solid #ddd;font-family:monospace}</style>',
    '</head><body>',
    `<h1>${escapeHtml(title)}</h1>`,
    charts.length === 0 ? '<p>No metrics yet.</p>' : `<main>${figures.join('')}</main>`,
    last === undefined ? '' : `<h2>Step ${last.step}</h2><table>${rows.join('')}</table>`,
    '</body></html>',
    '',
  ].join('\n');
}
