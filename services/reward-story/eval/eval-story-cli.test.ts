import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenario } from './testing/scenario.ts';

// The command end to end: argument and file checks, and one real run that starts
// the service (HTTP only, loopback) with the shipped model.
const SCRIPT = join(import.meta.dirname, '..', 'scripts', 'eval-story.ts');

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eval-story-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('eval-story command', () => {
  it('exits 2 naming the file and field when a scenario file is broken, before starting any service', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, JSON.stringify([{ ...scenario(), replies: { ...scenario().replies, good: '' } }]));
    const r = await run(['--scenarios', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`invalid scenario file ${file}: [0].replies.good: `);
    expect((await run(['--split', 'train'])).code).toBe(2);
  });

  it('scores scenarios through the real service and reports per-ordering pass rates', async () => {
    const file = join(dir, 'one.json');
    await writeFile(file, JSON.stringify([scenario()]));
    const r = await run(['--scenarios', file, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      model: string;
      checks: number;
      reports: Array<{ title: string; report: { overall: { all: { total: number } }; byOrdering: Record<string, { en: { total: number } }> } }>;
    };
    expect(out).toMatchObject({ model: 'default', checks: 5 });
    const all = out.reports[0]!.report;
    expect(all.overall.all.total).toBe(5);
    expect(Object.values(all.byOrdering).map((o) => o.en.total)).toEqual([1, 1, 1, 1, 1]);
    // One scenario has no other scenario to be told apart from.
    expect(out).toHaveProperty('contextDiscrimination.en.user_input', null);
  });
});
