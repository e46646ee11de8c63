// `make run`'s GRPO stage: runs rl-train with the given arguments, passes its
// output through, and after each validation line adds that validation's strict
// and any-format accuracy, read from the generation dump the trainer wrote
// just before (demo-accuracy.ts), so both series show while training runs.
//   node infra/scripts/demo-train.ts <validation_data_dir> <rl-train arguments...>
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { accuracyLine, dumpAccuracy, dumpFile } from './demo-accuracy.ts';

const [dumps, ...trainArgs] = process.argv.slice(2);
if (dumps === undefined || trainArgs.length === 0) {
  console.error('usage: demo-train.ts <validation_data_dir> <rl-train arguments...>');
  process.exit(2);
}
const rlTrain = resolve(import.meta.dirname, '../../services/trainer/bin/rl-train.ts');
const child = spawn(process.execPath, [rlTrain, ...trainArgs], { stdio: ['inherit', 'pipe', 'inherit'] });
// Ctrl-C reaches rl-train too (same process group); it cancels the job and exits, and so do we after it.
process.on('SIGINT', () => {});
const VALIDATION = /^validation at step (\d+):/;
for await (const line of createInterface({ input: child.stdout })) {
  console.log(line);
  const step = VALIDATION.exec(line)?.[1];
  if (step === undefined) continue;
  const acc = dumpAccuracy(dumpFile(dumps, Number(step)));
  console.log(acc === undefined ? `  (no generation dump for step ${step} in ${dumps})` : `  step ${step} accuracy: ${accuracyLine(acc)}`);
}
const code = await new Promise<number>((done) => {
  if (child.exitCode !== null) done(child.exitCode);
  else child.once('exit', (c, signal) => done(c ?? (signal === null ? 1 : 128)));
});
process.exit(code);
