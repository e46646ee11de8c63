// How many programs may run at once, following CPU use rather than a fixed
// count per core. A program that sleeps or waits on I/O costs no CPU, so while
// the running programs leave CPU unused more are let in, up to the slot count;
// CPU-bound programs fill the cores by themselves and hold admission at about
// one per core, so they are not slowed (nor pushed past their wall-clock
// limits) by programs let in beside them. Never fewer than `floor` (the old
// fixed count, one per core by default).
//
// Pure: the CPU reading and the clock are ports (a cgroup's CPU counter or
// /proc/stat in the service, fakes in tests).

/**
 * Cumulative CPU demand of the work admission governs (the service and its
 * sandboxes): CPU time used plus, where the host tells, time its tasks spent
 * runnable waiting for a CPU, so that CPU-bound work on a contended host still
 * reads as a core per task.
 */
export interface CpuSampler {
  /** Milliseconds so far (monotonic), or null when it cannot be read now. */
  cpuMs(): number | null;
}

/** Options of {@link CpuAdmission}. */
export interface CpuAdmissionOptions {
  /** CPU capacity in cores. */
  cores: number;
  /** Runs always allowed at once, whatever the CPU reading. */
  floor: number;
  /** Runs never exceeded (the slot count). */
  max: number;
  sampler: CpuSampler;
  /** Milliseconds, monotonic. */
  now: () => number;
  /** Share of `cores` to fill. @default 0.9 */
  target?: number;
  /** Milliseconds between CPU readings. @default 100 */
  sampleMs?: number;
  /** Most the limit may grow per reading, as a factor of the runs going on (new runs' CPU shows only in the next reading). @default 2 */
  growth?: number;
}

/**
 * The limit on concurrent runs. Each reading (at most every `sampleMs`, taken
 * when the queue asks) compares the CPU used over the last interval with the
 * runs that were going on (time-weighted): if `n` runs used `u` cores, about
 * `n × target × cores / u` runs like them fill the target. The limit is that,
 * at most `growth` × the runs going on, clamped to [floor, max]. When the CPU
 * cannot be read, the limit is the floor.
 */
export class CpuAdmission {
  readonly floor: number;
  readonly max: number;
  readonly sampleMs: number;
  readonly #cores: number;
  readonly #target: number;
  readonly #growth: number;
  readonly #sampler: CpuSampler;
  readonly #now: () => number;
  #limit: number;
  /** Start of the current interval, and the CPU counter then (null: unknown). */
  #t0: number;
  #cpu0: number | null;
  /** ∫ running dt over the current interval, up to #tLast. */
  #area = 0;
  #tLast: number;
  #running = 0;
  #demand: number | null = null;

  constructor(options: CpuAdmissionOptions) {
    const { cores, floor, max, sampler, now, target = 0.9, sampleMs = 100, growth = 2 } = options;
    if (!(Number.isInteger(floor) && floor >= 1)) throw new RangeError(`floor must be a positive integer, got ${floor}`);
    if (!(Number.isInteger(max) && max >= floor)) throw new RangeError(`max must be an integer >= floor (${floor}), got ${max}`);
    if (!(cores > 0 && target > 0 && sampleMs > 0 && growth >= 1)) throw new RangeError('cores, target and sampleMs must be > 0, growth >= 1');
    this.floor = floor;
    this.max = max;
    this.sampleMs = sampleMs;
    this.#cores = cores;
    this.#target = target;
    this.#growth = growth;
    this.#sampler = sampler;
    this.#now = now;
    this.#limit = floor;
    this.#t0 = this.#tLast = now();
    this.#cpu0 = floor === max ? null : sampler.cpuMs();
  }

  /** Whether the limit can change at all (false when floor = max: a fixed count, no CPU readings). */
  get adaptive(): boolean {
    return this.floor < this.max;
  }

  /** The limit as of the last reading (for metrics). */
  get current(): number {
    return this.adaptive ? this.#limit : this.floor;
  }

  /** CPU demand in cores over the last reading's interval (null before the first, or for a fixed count). */
  get demandCores(): number | null {
    return this.#demand;
  }

  /** Records a change in the number of runs going on (call on every start and end). */
  note(running: number): void {
    const t = this.#now();
    this.#area += this.#running * (t - this.#tLast);
    this.#tLast = t;
    this.#running = running;
  }

  /** The limit now, given `running` runs; takes a CPU reading when the last is `sampleMs` old. */
  limit(running: number): number {
    if (!this.adaptive) return this.floor;
    this.note(running);
    const t = this.#tLast;
    const dt = t - this.#t0;
    if (dt < this.sampleMs) return this.#limit;
    const cpu = this.#sampler.cpuMs();
    const area = this.#area;
    const cpu0 = this.#cpu0;
    this.#t0 = t;
    this.#cpu0 = cpu;
    this.#area = 0;
    if (cpu === null || cpu0 === null) {
      this.#demand = null;
      this.#limit = this.floor;
      return this.#limit;
    }
    const used = Math.max(0, cpu - cpu0) / dt; // cores
    this.#demand = used;
    const went = area / dt; // runs going on, time-weighted
    const fill = used > 0 ? (Math.max(went, 1) * this.#target * this.#cores) / used : Number.POSITIVE_INFINITY;
    const grown = Math.ceil(this.#growth * Math.max(running, went, 1));
    this.#limit = Math.min(this.max, Math.max(this.floor, Math.min(Math.floor(fill), grown)));
    return this.#limit;
  }
}
