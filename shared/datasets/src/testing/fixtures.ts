import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Real verl parquet files, copied into the repository (`test/fixtures/verl`, with
 * their sources and licences in its README) so a clean checkout has them.
 */
export const FIXTURES_DIR = resolve(import.meta.dirname, '../../../../test/fixtures/verl');

/** Path of one fixture file. */
export const fixture = (name: string) => join(FIXTURES_DIR, name);

/** A fresh temporary directory and its cleanup, for tests that write files. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
