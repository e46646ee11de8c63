import { listOf, scalar, structOf, type DataType } from './data-type.ts';

/**
 * Types of verl's common columns, with struct members in the order verl's
 * `datasets`-written files have them (alphabetical), so our files and theirs
 * show the same schema in pyarrow.
 */

/** A chat message `{content, role}`. */
export const MESSAGE: DataType = structOf({ content: scalar('string'), role: scalar('string') });

/** `prompt` and other message lists. */
export const MESSAGE_LIST: DataType = listOf(MESSAGE);

/** `reward_model`: what the reward function compares against. */
export const REWARD_MODEL: DataType = structOf({ ground_truth: scalar('string'), style: scalar('string') });

/** A chat message as a row value. */
export interface Message {
  role: string;
  content: string;
}
