// `<dir>/<step>.jsonl` writer of generation dumps (verl _dump_generations).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DumpEntry, GenerationDump } from '../core/controller/generation-dump.ts';

export function fileGenerationDump(dir: string): GenerationDump {
  return {
    async write(step: number, entries: readonly DumpEntry[]) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `${step}.jsonl`), entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
    },
  };
}
