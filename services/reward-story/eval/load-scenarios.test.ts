import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIO_FILES, InvalidScenarioFile, loadScenarios, parseScenarioFile } from './load-scenarios.ts';
import { ORDERINGS } from './orderings.ts';
import { buildEvalBatch } from './orderings.ts';
import { scenario } from './testing/scenario.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'story-scenarios-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const invalid = async (p: Promise<unknown>): Promise<InvalidScenarioFile> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof InvalidScenarioFile)) throw new Error(`expected InvalidScenarioFile, got ${String(err)}`);
  return err;
};

describe('the shipped evaluation set', () => {
  it('has at least 40 scenarios, half Chinese and half English, each language split evenly into dev and held-out', async () => {
    const all = await loadScenarios(DEFAULT_SCENARIO_FILES);
    expect(all.length).toBeGreaterThanOrEqual(40);
    for (const lang of ['zh', 'en']) {
      for (const split of ['dev', 'test']) expect(all.filter((s) => s.lang === lang && s.split === split).length, `${lang} ${split}`).toBe(all.length / 4);
    }
    const { checks } = buildEvalBatch(all);
    for (const o of ORDERINGS) expect(checks.filter((c) => c.ordering === o).length, o).toBeGreaterThanOrEqual(16);
  });

  it('repetition replies repeat an earlier assistant turn of their own scenario', async () => {
    for (const s of await loadScenarios(DEFAULT_SCENARIO_FILES)) {
      expect(
        s.context.conversation_history.some((t) => t.role === 'assistant' && t.content === s.replies.repetition),
        s.id,
      ).toBe(true);
    }
  });
});

describe('loadScenarios', () => {
  it('keeps one split when asked', async () => {
    const file = join(dir, 'two.json');
    await writeFile(file, JSON.stringify([scenario(), scenario({ id: 'en-02', split: 'test' })]));
    expect((await loadScenarios([file], 'test')).map((s) => s.id)).toEqual(['en-02']);
  });

  it('names the file and field of a broken scenario, and refuses unreadable files, non-JSON and ids used twice across files', async () => {
    const broken = join(dir, 'broken.json');
    await writeFile(broken, JSON.stringify([{ ...scenario(), lang: 'fr' }]));
    expect((await invalid(loadScenarios([broken]))).problems[0]).toMatch(/^\[0\]\.lang: /);
    expect((await invalid(loadScenarios([join(dir, 'missing.json')]))).problems).toEqual(['cannot be read']);
    expect(() => parseScenarioFile('x.json', '[{')).toThrow(InvalidScenarioFile);
    const a = join(dir, 'a.json');
    await writeFile(a, JSON.stringify([scenario()]));
    expect((await invalid(loadScenarios([a, a]))).problems).toEqual([`id en-01 is also in ${a}`]);
  });
});
