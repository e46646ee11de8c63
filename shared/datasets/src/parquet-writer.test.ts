import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '@rl/service-kit/core';
import { fieldsOf, listOf, scalar, structOf, type Field } from './data-type.ts';
import { openParquetFile, readParquetRows } from './parquet-reader.ts';
import { createParquetWriter } from './parquet-writer.ts';
import { tempDir } from './testing/fixtures.ts';
import { MESSAGE_LIST } from './verl-fields.ts';

const tmp = tempDir('rl-writer-');
afterAll(tmp.cleanup);

const FIELDS: Field[] = fieldsOf({
  data_source: scalar('string'),
  prompt: MESSAGE_LIST,
  tags: listOf(scalar('string')),
  extra_info: structOf({
    index: scalar('int64'),
    big: scalar('int64'),
    ratio: scalar('double'),
    ok: scalar('bool'),
    deep: structOf({ inner: structOf({ text: scalar('string') }) }),
  }),
  score: scalar('float'),
  blob: scalar('binary'),
});

async function writeRows(name: string, fields: Field[], rows: unknown[], rowGroupRows?: number): Promise<string> {
  const path = join(tmp.dir, name);
  const writer = await createParquetWriter(path, fields, rowGroupRows === undefined ? {} : { rowGroupRows });
  for (const row of rows) await writer.write(row);
  expect(await writer.close()).toEqual({ rows: rows.length });
  return path;
}

// Text that trips naive byte or UTF-16 handling: CJK, astral emoji, ZWJ sequences, combining marks, RTL, NUL.
const UNICODE = ['物語の始まり', '😀👩‍👩‍👧‍👦', 'é vs é', 'ﷺ مرحبا', 'tab\there\nnew line', 'nul\u0000inside', ''];

describe('createParquetWriter', () => {
  it('round-trips nested lists and structs, unicode, nulls and int64 exactly', async () => {
    const rows = UNICODE.map((text, i) => ({
      data_source: i === 3 ? null : `src-${text}`,
      prompt:
        i === 4
          ? []
          : [
              { role: 'system', content: text },
              { role: 'user', content: `${text}?` },
            ],
      tags: i === 5 ? null : [text, null, 'x'],
      extra_info: { index: i, big: i === 0 ? 2n ** 62n : -i, ratio: i / 3, ok: i % 2 === 0, deep: { inner: { text } } },
      score: i === 6 ? null : 0.5,
      blob: new Uint8Array([i, 255, 0]),
    }));
    const path = await writeRows('nested.parquet', FIELDS, rows);
    const back = await readParquetRows(path);
    expect(back.fields).toEqual(FIELDS);
    expect(back.rows).toEqual(rows.map((r, i) => ({ ...r, extra_info: { ...r.extra_info, big: i === 0 ? 2n ** 62n : -i } })));
  });

  it('writes one row group per rowGroupRows rows and reads them back in order', async () => {
    const rng = createRng(7);
    const rows = Array.from({ length: 2503 }, (_, i) => ({ data_source: `r${i}`, extra_info: { index: rng.int(0, 1e9) } }));
    const fields = fieldsOf({ data_source: scalar('string'), extra_info: structOf({ index: scalar('int64') }) });
    const path = await writeRows('groups.parquet', fields, rows, 1000);
    const file = await openParquetFile(path);
    expect(file.rowGroups).toEqual([
      { rowStart: 0, rowEnd: 1000 },
      { rowStart: 1000, rowEnd: 2000 },
      { rowStart: 2000, rowEnd: 2503 },
    ]);
    expect(await file.readRows()).toEqual(rows);
  });

  it('writes a valid file with no rows', async () => {
    const path = await writeRows('empty.parquet', FIELDS, []);
    const back = await readParquetRows(path);
    expect(back.numRows).toBe(0);
    expect(back.fields).toEqual(FIELDS);
  });

  it('rejects a row that does not fit the schema, naming the row and the field path', async () => {
    const path = join(tmp.dir, 'bad.parquet');
    const writer = await createParquetWriter(path, FIELDS);
    const good = { data_source: 'a', prompt: [], tags: [], extra_info: { index: 1, big: 1, ratio: 1, ok: true, deep: null }, score: 1, blob: null };
    await writer.write(good);
    const cases: Array<[unknown, string]> = [
      [{ ...good, extra_info: { ...good.extra_info, index: '1' } }, 'row 1: extra_info.index: expected int64'],
      [{ ...good, prompt: [{ role: 'user', content: 3 }] }, 'row 1: prompt[0].content: expected string'],
      [{ ...good, prompt: [{ role: 'user', content: 'x', name: 'n' }] }, 'row 1: prompt[0].name: not in the schema'],
      [{ ...good, surprise: 1 }, 'row 1: surprise: not a column'],
      [{ ...good, tags: 'a' }, 'row 1: tags: expected a list'],
      [{ ...good, extra_info: { ...good.extra_info, index: 2 ** 60 } }, 'row 1: extra_info.index: expected int64'],
      ['nope', 'row 1: expected an object'],
    ];
    for (const [row, message] of cases) {
      await expect(writer.write(row)).rejects.toMatchObject({ code: 'validation_failed', message: expect.stringContaining(message) });
    }
    expect(writer.rowCount).toBe(1);
    await writer.close();
    expect((await readParquetRows(path)).rows).toHaveLength(1);
  });

  it('leaves neither the target nor a partial file behind when aborted', async () => {
    const dir = tempDir('rl-abort-');
    try {
      const path = join(dir.dir, 'aborted.parquet');
      const writer = await createParquetWriter(path, FIELDS, { rowGroupRows: 1 });
      await writer.write({ data_source: 'a' });
      await writer.abort();
      expect(existsSync(path)).toBe(false);
      expect(readdirSync(dir.dir)).toEqual([]);
      await expect(writer.write({})).rejects.toMatchObject({ code: 'bad_request' });
    } finally {
      dir.cleanup();
    }
  });

  it('refuses schemas it cannot write and paths it cannot create', async () => {
    const at = (name: string) => join(tmp.dir, name);
    await expect(createParquetWriter(at('x1.parquet'), [])).rejects.toMatchObject({ code: 'bad_request' });
    await expect(createParquetWriter(at('x2.parquet'), [{ name: 'a', type: { kind: 'struct', fields: [] } }])).rejects.toMatchObject({ code: 'bad_request' });
    const dup = fieldsOf({ a: scalar('string') });
    await expect(createParquetWriter(at('x3.parquet'), [...dup, ...dup])).rejects.toMatchObject({ code: 'bad_request' });
    await expect(createParquetWriter(at('x4.parquet'), dup, { rowGroupRows: 0 })).rejects.toMatchObject({ code: 'bad_request' });
    await expect(createParquetWriter(join(tmp.dir, 'no-such-dir', 'x5.parquet'), dup)).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining('cannot create'),
    });
  });
});
