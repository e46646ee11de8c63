// The GSM8K demo's two accuracies of one validation, read from the trainer's
// generation dump (`<validation_data_dir>/<step>.jsonl`, one line per problem):
// strict is the reward service's own verdict (`acc`: verl's strict "#### N"),
// any-format is whether the last number of the response equals the answer,
// whatever surrounds it ("The answer is 8." counts). verl's gsm8k `flexible`
// method also takes the last number, but as the text its regex captures, so
// "8." never equals "8" and the SFT data's own ending would score 0; here the
// number is compared as a number.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Shares of one validation's problems, each in [0, 1]. */
export interface DumpAccuracy {
  /** Problems in the dump. */
  n: number;
  /** Right in verl's strict format (the reward's `acc`). */
  strict: number;
  /** Right in any format: the last number of the response is the answer. */
  anyFormat: number;
  /** Responses with a "#### N" answer line, right or wrong. */
  hashFormat: number;
}

const NUMBER = /-?\d[\d,]*(?:\.\d+)?/g;
const STRICT_LINE = /#### -?[0-9.,]+/;

/** The last number of a response as a number (commas dropped), or undefined when it has none. */
function lastNumber(text: string): number | undefined {
  const last = text.match(NUMBER)?.at(-1);
  return last === undefined ? undefined : Number(last.replaceAll(',', ''));
}

/** Accuracy of one dump file's responses; undefined when the file is absent or empty. */
export function dumpAccuracy(file: string): DumpAccuracy | undefined {
  if (!existsSync(file)) return undefined;
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { output: string; gts: unknown; acc?: unknown });
  if (rows.length === 0) return undefined;
  let strict = 0;
  let anyFormat = 0;
  let hashFormat = 0;
  for (const r of rows) {
    if (r.acc === true) strict++;
    if (STRICT_LINE.test(r.output)) hashFormat++;
    const got = lastNumber(r.output);
    if (got !== undefined && got === Number(String(r.gts).replaceAll(',', ''))) anyFormat++;
  }
  const n = rows.length;
  return { n, strict: strict / n, anyFormat: anyFormat / n, hashFormat: hashFormat / n };
}

/** The dump of the validation at `step` under a job's validation_data_dir. */
export const dumpFile = (dir: string, step: number) => join(dir, `${step}.jsonl`);

/** `strict 0.000 | any format 0.615 | "####" lines 0.000 (200 problems)` */
export const accuracyLine = (a: DumpAccuracy) =>
  `strict ${a.strict.toFixed(3)} | any format ${a.anyFormat.toFixed(3)} | "####" lines ${a.hashFormat.toFixed(3)} (${a.n} problems)`;
