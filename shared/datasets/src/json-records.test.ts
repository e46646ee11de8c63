import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJsonRecords, type RawRecord } from './json-records.ts';
import { tempDir } from './testing/fixtures.ts';

const tmp = tempDir('rl-json-');
afterAll(tmp.cleanup);

function file(name: string, text: string): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, text);
  return path;
}

async function collect(path: string): Promise<RawRecord[]> {
  const out: RawRecord[] = [];
  for await (const r of readJsonRecords(path)) out.push(r);
  return out;
}

const summary = (rs: RawRecord[]) => rs.map((r) => (r.ok ? [r.label, r.value] : [r.label, 'broken']));

describe('readJsonRecords', () => {
  it('reads JSONL line by line: blank lines skipped, CRLF and a BOM tolerated, bad lines reported', async () => {
    const path = file('a.jsonl', '\uFEFF{"a":1}\r\n\n  \n{"a":"物語"}\nnot json\n{"a":3}');
    expect(summary(await collect(path))).toEqual([
      ['line 1', { a: 1 }],
      ['line 4', { a: '物語' }],
      ['line 5', 'broken'],
      ['line 6', { a: 3 }],
    ]);
  });

  it('splits UTF-8 correctly across read chunks and reports bytes consumed', async () => {
    // Lines of 3-byte characters over several 1 MiB read chunks, so chunk edges fall inside characters.
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ i, text: '語'.repeat(400 + (i % 7)) }));
    const path = file('big.jsonl', `${lines.join('\n')}\n`);
    const records = await collect(path);
    expect(records).toHaveLength(3000);
    expect(records.every((r, i) => r.ok && JSON.stringify(r.value) === lines[i])).toBe(true);
    const bytes = records.map((r) => r.bytesRead);
    expect(bytes.every((b, i) => i === 0 || b >= bytes[i - 1]!)).toBe(true);
    expect(bytes.at(-1)).toBe(Buffer.byteLength(`${lines.join('\n')}\n`));
  });

  it('reads a .json array element by element, numbering records from 0', async () => {
    const path = file('a.json', '[{"a":1},\n {"a":2}, {"a":tru}, {"a":"]"}]\n');
    expect(summary(await collect(path))).toEqual([
      ['record 0', { a: 1 }],
      ['record 1', { a: 2 }],
      ['record 2', 'broken'],
      ['record 3', { a: ']' }],
    ]);
  });

  it('reads a .json object as one record', async () => {
    expect(summary(await collect(file('one.json', ' {"system": "s", "conversations": []} ')))).toEqual([['record 0', { system: 's', conversations: [] }]]);
  });

  it('fails on an unreadable .json file or a missing path, naming the file', async () => {
    await expect(collect(file('bad.json', '{"a":1}\n{"a":2}\n'))).rejects.toMatchObject({ code: 'bad_request', message: expect.stringContaining('.jsonl') });
    await expect(collect(file('cut.json', '[{"a":1}, {"a"'))).rejects.toMatchObject({ code: 'bad_request', message: expect.stringContaining('cut.json') });
    await expect(collect(join(tmp.dir, 'missing.jsonl'))).rejects.toMatchObject({ code: 'not_found' });
  });
});
