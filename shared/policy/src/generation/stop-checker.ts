import type { Tokenizer } from '../types.ts';

/** Why and where a row stopped. */
export interface StopState {
  finishReason: 'stop' | 'length' | null;
  /** The stop token id or stop string that ended the row (vLLM's `stop_reason`). */
  stopReason: number | string | null;
  /** Decoded text, with a matched stop string and anything after it removed. */
  text: string;
}

/**
 * Tracks one row's output against stop token ids and stop strings (vLLM
 * semantics: ids keep the stop token, the text drops it or the stop string). Stop
 * strings are searched in the newly decoded tail (a token may add several
 * characters); the earliest match wins and the text is cut there.
 */
export class StopChecker {
  readonly ids: number[] = [];
  readonly logprobs: number[] = [];
  readonly state: StopState = { finishReason: null, stopReason: null, text: '' };
  readonly #tokenizer: Tokenizer;
  readonly #stopIds: ReadonlySet<number>;
  readonly #stop: readonly string[];
  readonly #budget: number;

  constructor(tokenizer: Tokenizer, stopIds: ReadonlySet<number>, stop: readonly string[], budget: number) {
    this.#tokenizer = tokenizer;
    this.#stopIds = stopIds;
    this.#stop = stop;
    this.#budget = budget;
    if (budget <= 0) this.state.finishReason = 'length';
  }

  get done(): boolean {
    return this.state.finishReason !== null;
  }

  /** Records a generated token; returns true when the row is finished. */
  push(id: number, logprob: number): boolean {
    this.ids.push(id);
    this.logprobs.push(logprob);
    const before = this.state.text.length;
    this.state.text = this.#tokenizer.decode(this.ids);
    if (this.#stopIds.has(id)) {
      // vLLM's stop checker drops the stop token's own text (include_stop_str_in_output=false).
      this.state.text = this.#tokenizer.decode(this.ids.slice(0, -1));
      this.state.finishReason = 'stop';
      this.state.stopReason = id;
    } else if (this.#matchStopString(before)) {
      this.state.finishReason = 'stop';
    } else if (this.ids.length >= this.#budget) {
      this.state.finishReason = 'length';
    }
    return this.done;
  }

  #matchStopString(before: number): boolean {
    let best = -1;
    let which: string | null = null;
    for (const s of this.#stop) {
      // 3 extra characters: a pending partial UTF-8 sequence decodes to up to 3 U+FFFD that change later.
      const at = this.state.text.indexOf(s, Math.max(0, before - s.length - 3));
      if (at >= 0 && (best < 0 || at < best)) {
        best = at;
        which = s;
      }
    }
    if (which === null) return false;
    this.state.text = this.state.text.slice(0, best);
    this.state.stopReason = which;
    return true;
  }
}
