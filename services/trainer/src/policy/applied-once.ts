// Exactly-once training steps over an at-least-once bus. A trainer whose
// `update` (or `sft_step`) reply was lost — the connection dropped while the
// worker was training — asks again with the same step. Training again would
// apply the same gradients twice; instead the worker answers the repeat with
// the reply it produced the first time. Only the last step is remembered: the
// controller moves on to step N+1 only after it has the reply of step N.

/** Remembers the last applied step of one verb and its reply. */
export class AppliedOnce<R> {
  #step: number | null = null;
  #reply: Promise<R> | null = null;

  /**
   * Runs `apply` for `step`, or returns the reply of `step` when it was already
   * applied (or is being applied: the repeat waits for the same reply). A failed
   * application is forgotten, so asking again applies it.
   */
  run(step: number, apply: () => Promise<R>): Promise<R> {
    if (this.#step === step && this.#reply !== null) return this.#reply;
    const reply = apply();
    this.#step = step;
    this.#reply = reply;
    reply.catch(() => {
      if (this.#reply !== reply) return;
      this.#step = null;
      this.#reply = null;
    });
    return reply;
  }

  /** The last step applied (or being applied), if any. */
  get lastStep(): number | null {
    return this.#step;
  }
}
