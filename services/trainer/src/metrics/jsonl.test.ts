import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseMetricsJsonl, readMetricsJsonl } from './jsonl-reader.ts';
import { openMetricsLog } from './jsonl-writer.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'trainer-metrics-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('metrics JSONL', () => {
  it('appends one line per record in call order', async () => {
    const path = join(dir, 'metrics.jsonl');
    const log = await openMetricsLog(path);
    await Promise.all([1, 2, 3].map((step) => log.append({ step, 'critic/score/mean': step / 10 })));
    await log.close();
    expect(readFileSync(path, 'utf8').split('\n')).toEqual([
      '{"step":1,"critic/score/mean":0.1}',
      '{"step":2,"critic/score/mean":0.2}',
      '{"step":3,"critic/score/mean":0.3}',
      '',
    ]);
    await expect(log.append({ step: 4 })).rejects.toThrow(/closed/);
  });

  it('tolerates a torn last line when reading, and repairs it before appending again', async () => {
    const path = join(dir, 'metrics.jsonl');
    writeFileSync(path, '{"step":1,"a":1}\n{"step":2,"a":2}\n');
    appendFileSync(path, '{"step":3,"a":');
    const read = await readMetricsJsonl(path);
    expect(read).toEqual({
      records: [
        { step: 1, a: 1 },
        { step: 2, a: 2 },
      ],
      tornTail: true,
    });
    const log = await openMetricsLog(path);
    await log.append({ step: 3, a: 3 });
    await log.close();
    expect((await readMetricsJsonl(path)).records.map((r) => r.step)).toEqual([1, 2, 3]);
  });

  it('drops records after the resumed step so resumed steps are not logged twice', async () => {
    const path = join(dir, 'metrics.jsonl');
    writeFileSync(path, [1, 2, 3, 4].map((step) => JSON.stringify({ step })).join('\n') + '\n');
    const log = await openMetricsLog(path, { keepUpToStep: 2 });
    await log.append({ step: 3, again: 1 });
    await log.close();
    expect((await readMetricsJsonl(path)).records).toEqual([{ step: 1 }, { step: 2 }, { step: 3, again: 1 }]);
  });

  it('rejects a corrupt line that is not the last one, naming it', () => {
    expect(() => parseMetricsJsonl('{"step":1}\nnot json\n{"step":2}\n', 'm.jsonl')).toThrow(/m\.jsonl line 2: not a metrics record/);
    expect(() => parseMetricsJsonl('{"nostep":1}\n')).toThrow(/line 1/);
    expect(parseMetricsJsonl('\n{"step":1}\n\n')).toEqual({ records: [{ step: 1 }], tornTail: false });
  });

  it('reports a missing file as not_found', async () => {
    await expect(readMetricsJsonl(join(dir, 'none.jsonl'))).rejects.toMatchObject({ code: 'not_found' });
  });
});
