import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatPath } from '@rl/service-kit';
import { ScenarioFile, type ScenarioSplit, type StoryScenario } from './scenario.ts';

/** The shipped evaluation set: Chinese and English scenarios, one file each. */
export const DEFAULT_SCENARIO_FILES = ['scenarios-zh.json', 'scenarios-en.json'].map((f) => join(import.meta.dirname, f));

/** A scenario file that cannot be used; `problems` name the file and the field. */
export class InvalidScenarioFile extends Error {
  override readonly name = 'InvalidScenarioFile';
  readonly code = 'invalid_scenario_file';
  readonly file: string;
  readonly problems: string[];
  constructor(file: string, problems: string[], options?: ErrorOptions) {
    super(`${file}: ${problems.join('; ')}`, options);
    this.file = file;
    this.problems = problems;
  }
}

/** Parses one file's text; throws {@link InvalidScenarioFile} listing the first problems. */
export function parseScenarioFile(file: string, text: string): StoryScenario[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new InvalidScenarioFile(file, [`not JSON: ${cause instanceof Error ? cause.message : String(cause)}`], { cause });
  }
  const parsed = ScenarioFile.safeParse(json);
  if (!parsed.success)
    throw new InvalidScenarioFile(
      file,
      parsed.error.issues.slice(0, 10).map((i) => `${formatPath(i.path)}: ${i.message}`),
    );
  return parsed.data;
}

/** Reads and validates the files; ids must be distinct across all of them. Keeps only `split` when given. */
export async function loadScenarios(files: readonly string[], split?: ScenarioSplit): Promise<StoryScenario[]> {
  const all: StoryScenario[] = [];
  const where = new Map<string, string>();
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (cause) {
      throw new InvalidScenarioFile(file, ['cannot be read'], { cause });
    }
    for (const s of parseScenarioFile(file, text)) {
      const other = where.get(s.id);
      if (other !== undefined) throw new InvalidScenarioFile(file, [`id ${s.id} is also in ${other}`]);
      where.set(s.id, file);
      all.push(s);
    }
  }
  return split === undefined ? all : all.filter((s) => s.split === split);
}
