import { formatDataType } from '../data-type.ts';
import type { DataValue } from '../data-value.ts';
import { openParquetFile } from '../parquet-reader.ts';

// JSON has no bigint or bytes: big int64 values print as digit strings, bytes as base64.
function jsonSafe(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return value;
}

/** `rl-data inspect`: the schema and the first rows, as text or as one JSON document. */
export async function inspectParquet(path: string, rowCount: number, asJson: boolean): Promise<void> {
  const file = await openParquetFile(path);
  const rows: DataValue[] = await file.readRows({ rowEnd: rowCount });
  if (asJson) {
    const columns = file.fields.map((f) => ({ name: f.name, type: formatDataType(f.type), nullable: f.nullable ?? true }));
    const doc = { path, numRows: file.numRows, rowGroups: file.rowGroups.length, createdBy: file.createdBy ?? null, columns, rows };
    process.stdout.write(`${JSON.stringify(doc, jsonSafe)}\n`);
    return;
  }
  const lines = [
    `file: ${path}`,
    `rows: ${file.numRows} in ${file.rowGroups.length} row group(s)${file.createdBy ? `, written by ${file.createdBy}` : ''}`,
    'schema:',
    ...file.fields.map((f) => `  ${f.name}: ${formatDataType(f.type)}${f.nullable === false ? ' not null' : ''}`),
  ];
  rows.forEach((row, i) => lines.push(`row ${i}:`, JSON.stringify(row, jsonSafe, 2)));
  process.stdout.write(`${lines.join('\n')}\n`);
}
