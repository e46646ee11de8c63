// Regenerates services/reward-story/models/default (model.onnx, tokenizer.json,
// sentence_bert_config.json) byte for byte; README.md there is hand-written.
//   node services/reward-story/scripts/build-default-model.ts [outDir]
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { writeDefaultModel } from '../tools/default-model/build.ts';

const outDir = resolve(process.argv[2] ?? join(import.meta.dirname, '..', 'models', 'default'));
const written = await writeDefaultModel(outDir);
for (const name of written) {
  const { size } = await stat(join(outDir, name));
  process.stdout.write(`${join(outDir, name)}  ${(size / 1024).toFixed(0)} KiB\n`);
}
