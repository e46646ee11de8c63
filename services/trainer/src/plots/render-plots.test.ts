import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '@rl/service-kit';
import { renderPlots } from './render-plots.ts';
import { sparkline } from './sparkline.ts';

/** Checks that every start tag has its end tag, properly nested, in one <svg> root. */
function assertWellFormedSvg(text: string): void {
  expect(text.startsWith('<svg')).toBe(true);
  expect(text.trimEnd().endsWith('</svg>')).toBe(true);
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g;
  for (const m of text.matchAll(tag)) {
    const [, closing, name, , selfClosing] = m as unknown as [string, string, string, string, string];
    if (selfClosing === '/') continue;
    if (closing === '/') expect(stack.pop()).toBe(name);
    else stack.push(name);
  }
  expect(stack).toEqual([]);
}

let dir: string;
let written: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trainer-plots-'));
  const rng = createRng(3);
  const lines: string[] = [];
  for (let step = 1; step <= 12; step++) {
    lines.push(
      JSON.stringify({
        step,
        'critic/score/mean': step / 12,
        'critic/score/std': 0.1 + 0.01 * rng.next(),
        'response_length/mean': 10 + step,
        'response_length/max': 20,
        'actor/ppo_kl': 0.001 * step,
        'actor/entropy': 2 - step / 10,
        'actor/pg_loss': -0.01 * step,
        'actor/grad_norm': 1 + rng.next(),
        'timing_s/gen': 1.5,
        'timing_s/reward': 0.25,
        'timing_s/update_actor': 2,
        'timing_s/step': 3.75,
        'reward/story/relevance/mean': 0.3 + step / 100,
        'reward/story/info_gain/mean': 0.5,
        'reward/story/repeat_cosine/mean': 0.2,
      }),
    );
    if (step % 4 === 0) lines.push(JSON.stringify({ step, 'val-core/arithmetic_sequence/acc/mean@1': step / 16 }));
  }
  const path = join(dir, 'metrics.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n{"step":13,"critic/sc`);
  written = await renderPlots(path, join(dir, 'plots'));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (name: string) => readFileSync(join(dir, 'plots', name), 'utf8');

describe('renderPlots', () => {
  it('writes one SVG per chart with data and an index page', () => {
    expect(written.map((p) => basename(p))).toEqual([
      'reward.svg',
      'story-components.svg',
      'val-accuracy.svg',
      'response-length.svg',
      'kl.svg',
      'entropy.svg',
      'pg-loss.svg',
      'grad-norm.svg',
      'timing.svg',
      'index.html',
    ]);
  });

  it('writes well-formed SVG that names its series', () => {
    const expected: Record<string, string[]> = {
      'reward.svg': ['critic/score/mean', 'Training reward'],
      'story-components.svg': ['reward/story/info_gain/mean', 'reward/story/relevance/mean'],
      'val-accuracy.svg': ['val-core/arithmetic_sequence/acc/mean@1'],
      'response-length.svg': ['response_length/mean', 'response_length/max'],
      'kl.svg': ['actor/ppo_kl'],
      'entropy.svg': ['actor/entropy'],
      'pg-loss.svg': ['actor/pg_loss'],
      'grad-norm.svg': ['actor/grad_norm'],
      'timing.svg': ['timing_s/gen', 'timing_s/reward', 'timing_s/update_actor'],
    };
    for (const [file, series] of Object.entries(expected)) {
      const svg = read(file);
      assertWellFormedSvg(svg);
      for (const s of series) expect(svg, `${file} shows ${s}`).toContain(s);
    }
    // Raw diagnostics on other scales are not story components.
    expect(read('story-components.svg')).not.toContain('repeat_cosine');
    // The total is not stacked on top of its parts.
    expect(read('timing.svg')).not.toContain('timing_s/step');
  });

  it('draws the reward std band and the line as paths', () => {
    const svg = read('reward.svg');
    expect(svg.match(/<path/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
  });

  it('links every chart from index.html and lists the last step (the torn line ignored)', () => {
    const html = read('index.html');
    for (const p of written.slice(0, -1)) expect(html).toContain(`src="${basename(p)}"`);
    expect(html).toContain('<h2>Step 12</h2>');
  });

  it('writes only the index when there is nothing to plot', async () => {
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const out = await renderPlots(empty, join(dir, 'empty-plots'));
    expect(out.map((p) => basename(p))).toEqual(['index.html']);
    expect(readFileSync(out[0] as string, 'utf8')).toContain('No metrics yet.');
  });
});

describe('sparkline', () => {
  it('maps values to eight bar heights over the last width values', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([5, 0, 10], 2)).toBe('▁█');
    expect(sparkline([1, Number.NaN, null, 1])).toBe('▄  ▄');
    expect(sparkline([])).toBe('');
  });
});
