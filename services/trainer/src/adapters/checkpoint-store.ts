// Checkpoints in verl's layout: <dir>/global_step_<N>/ holds the controller's
// state (trainer_state.json: data position, KL coefficient, step) and the
// policy worker's models (actor/, critic/: a Hugging Face directory each, with
// the optimizer state beside it; policy/checkpoint-layout.ts);
// <dir>/latest_checkpointed_iteration.txt names the newest complete one.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, ErrorCode } from '@rl/service-kit';
import { TrainerState, type CheckpointStore } from '../core/controller/trainer-state.ts';

export const LATEST_FILE = 'latest_checkpointed_iteration.txt';
export const stepDir = (dir: string, step: number) => join(dir, `global_step_${step}`);

/** Writes the controller state of a checkpoint whose policy files are already in place, then marks it latest. */
export async function commitCheckpoint(dir: string, state: TrainerState): Promise<string> {
  const d = stepDir(dir, state.step);
  await mkdir(d, { recursive: true });
  await writeFile(join(d, 'trainer_state.json'), JSON.stringify(state, null, 2));
  // The pointer moves last (atomically), so a crash mid-save resumes from the previous checkpoint.
  const tmp = join(dir, `${LATEST_FILE}.tmp`);
  await writeFile(tmp, String(state.step));
  await rename(tmp, join(dir, LATEST_FILE));
  return d;
}

/** The step the latest pointer of `dir` names, or null when there is none. */
export async function latestStep(dir: string): Promise<number | null> {
  let text: string;
  try {
    text = await readFile(join(dir, LATEST_FILE), 'utf8');
  } catch {
    return null;
  }
  const step = Number(text.trim());
  if (!Number.isInteger(step) || step < 0) {
    throw new AppError(ErrorCode.BadRequest, `${join(dir, LATEST_FILE)}: not a step number: ${JSON.stringify(text.slice(0, 40))}`);
  }
  return step;
}

/** The newest complete checkpoint's state, or null when there is none. */
export async function readLatestCheckpoint(dir: string): Promise<TrainerState | null> {
  const step = await latestStep(dir);
  if (step === null) return null;
  const raw: unknown = JSON.parse(await readFile(join(stepDir(dir, step), 'trainer_state.json'), 'utf8'));
  return TrainerState.parse(raw);
}

/** The file-system checkpoint store of a job directory. */
export function fileCheckpointStore(dir: string): CheckpointStore {
  return {
    workerDir: (step) => stepDir(dir, step),
    commit: (state) => commitCheckpoint(dir, state),
    latest: () => readLatestCheckpoint(dir),
  };
}
