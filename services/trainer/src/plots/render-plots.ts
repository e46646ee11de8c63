import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { readMetricsJsonl } from '../metrics/jsonl-reader.ts';
import type { MetricsRecord } from '../metrics/step-metrics.ts';
import { CHARTS } from './chart-defs.ts';
import { chartSpec } from './chart-spec.ts';
import { indexHtml, type ChartEntry } from './index-html.ts';

/** Merges records of the same step (training and validation lines), later keys winning, sorted by step. */
export function mergeByStep(records: readonly MetricsRecord[]): MetricsRecord[] {
  const byStep = new Map<number, MetricsRecord>();
  for (const r of records) byStep.set(r.step, { ...byStep.get(r.step), ...r });
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}

/** Renders one Vega-Lite spec to SVG text, headless (no canvas, no browser). */
export async function renderSvg(spec: Parameters<typeof compile>[0]): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

// Written beside the target and renamed, so a page open during training never shows half a file.
async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

/** Renders every chart that has data from in-memory records; returns the written paths (SVGs, then index.html). */
export async function renderPlotsFromRecords(records: readonly MetricsRecord[], outDir: string, title = 'Training run'): Promise<string[]> {
  const merged = mergeByStep(records);
  const keys = [...new Set(merged.flatMap((r) => Object.keys(r)))].sort();
  await mkdir(outDir, { recursive: true });
  const written: string[] = [];
  const entries: ChartEntry[] = [];
  for (const def of CHARTS) {
    const spec = chartSpec(def, merged, keys);
    if (spec === undefined) continue;
    const file = `${def.name}.svg`;
    const path = join(outDir, file);
    await writeAtomic(path, await renderSvg(spec));
    written.push(path);
    entries.push({ file, title: def.title });
  }
  const index = join(outDir, 'index.html');
  await writeAtomic(index, indexHtml(title, entries, merged.at(-1)));
  written.push(index);
  return written;
}

/**
 * Renders the main curves of a run from its metrics JSONL (a torn last line is
 * ignored) into `outDir`: one SVG per chart with data, plus an index.html
 * showing them. Returns the written paths.
 */
export async function renderPlots(metricsJsonlPath: string, outDir: string): Promise<string[]> {
  const { records } = await readMetricsJsonl(metricsJsonlPath);
  return renderPlotsFromRecords(records, outDir);
}
