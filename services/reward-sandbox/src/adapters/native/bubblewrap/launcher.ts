// The root-side launcher of a bubblewrap run, started before the run arrives.
//
// A run must be in its slot's memory/pids cgroup from its first process on. On
// cgroup v1, moving a process in (writing its pid to cgroup.procs) waits for an
// RCU grace period: measured +8-26 ms p50 and ~1 s stalls in ~4% of runs when
// each run's launcher joined on the critical path. So each slot keeps one spare
// launcher: a `/bin/bash` started while the slot is idle (at start-up and after
// each run), which joins the slot's cgroups at once and then blocks reading one
// byte from fd 0. A run writes its command (the root prefix, the relay and
// bwrap, NUL-separated, with the highest data fd it uses) to the launcher's
// command file (in a 0700 directory of the service), then sends the byte; the
// launcher reads the file, closes every fd past the run's last data fd, and
// execs the command, which inherits the cgroups. The join, and its occasional
// stall, happens while the slot waits for work. Under saturation the next run
// may reach its launcher before the join is done and waits for it.
//
// The launcher has a fixed number of stdio pipes (fds 1 .. FD.firstData +
// SPARE_DATA_FDS - 1); a run with more data fds gets a fresh launcher that
// joins on its critical path (the old cost). A spare launcher is detached
// (its own process group) and unref'd; closing its pool kills it, and if the
// service dies its fd 0 reaches EOF and it exits.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Duplex } from 'node:stream';
import { FD } from './supervisor.ts';

/** Data fds (FD.firstData ...) a spare launcher has; a run needing more gets a fresh launcher. */
export const SPARE_DATA_FDS = 12;
/**
 * Spare launchers per slot. Sequential runs reuse one slot and arrive a few ms
 * after the last one left, before a launcher spawned then has joined (8-26 ms,
 * sometimes ~1 s); with two, a run takes one spawned a run earlier that has.
 */
export const SPARES_PER_SLOT = 2;

// Arguments: the number of cgroup.procs files, the files, the command file.
// Exit 125 (a sandbox failure for the runner) when a join fails or the run never comes.
const SCRIPT = [
  'n=$1; shift',
  'for ((i = 0; i < n; i++)); do echo $$ > "$1" || exit 125; shift; done',
  'file=$1',
  // Blocks until the run arrives (one byte); EOF means the launcher was discarded or the service is gone.
  'IFS= read -r -N 1 go || exit 125',
  'exec 0</dev/null',
  'mapfile -d "" -t args < "$file" || exit 125',
  'MAXFD=${args[0]}; args=("${args[@]:1}")',
  // No redirection on this loop: bash would park stderr on a high fd for it, and the loop would close that.
  'for f in /proc/$$/fd/*; do k=${f##*/}; if [ "$k" -gt "$MAXFD" ]; then eval "exec $k>&-"; fi; done',
  'export MAXFD',
  'exec "${args[@]}"',
].join('\n');

let commandDir: string | null = null;
let serial = 0;
/** A private (0700) directory for command files, removed at exit. */
function commandFile(): string {
  if (commandDir === null) {
    const dir = mkdtempSync(join(tmpdir(), 'rs-launch-'));
    commandDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  serial += 1;
  return join(commandDir, `${process.pid}-${serial}`);
}

/** One launcher process, waiting for its run's command. */
export class Launcher {
  readonly child: ChildProcess;
  /** The service's ends of fds 0 .. maxFd (0 is the trigger). */
  readonly io: Array<Duplex | null>;
  /** Data fds available (FD.firstData ...). */
  readonly dataFds: number;
  #file: string;
  #groups: string[];
  #joined: boolean;
  #exited = false;
  #started = false;

  private constructor(cgroupProcs: readonly string[], dataFds: number) {
    this.dataFds = dataFds;
    this.#file = commandFile();
    // The cgroup paths as /proc/<pid>/cgroup shows them end in the slot's directory name.
    this.#groups = cgroupProcs.map((p) => `/${basename(dirname(p))}\n`);
    this.#joined = this.#groups.length === 0;
    const maxFd = FD.firstData + dataFds - 1;
    this.child = spawn('/bin/bash', ['--norc', '--noprofile', '-c', SCRIPT, 'launcher', String(cgroupProcs.length), ...cgroupProcs, this.#file], {
      stdio: Array.from({ length: maxFd + 1 }, () => 'pipe' as const),
      detached: true,
      // Nothing of the service's environment reaches even the host-side helpers.
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
    this.io = this.child.stdio as unknown as Array<Duplex | null>;
    this.io.forEach((s) => s?.on('error', () => {}));
    this.child.on('error', () => (this.#exited = true));
    this.child.on('exit', () => {
      this.#exited = true;
      try {
        unlinkSync(this.#file);
      } catch {
        // never written
      }
    });
  }

  /** Starts a launcher that joins `cgroupProcs` now; `spare` ones do not keep the service alive. */
  static spawn(cgroupProcs: readonly string[], dataFds: number, spare: boolean): Launcher {
    const l = new Launcher(cgroupProcs, Math.max(1, dataFds));
    if (spare) {
      l.child.unref();
      for (const s of l.io) (s as { unref?: () => void } | null)?.unref?.();
    }
    return l;
  }

  /** Whether the launcher is in all its cgroups yet (read from /proc/<pid>/cgroup; stays true once seen). */
  get joined(): boolean {
    if (this.#joined || this.child.pid === undefined) return this.#joined;
    let text: string;
    try {
      text = readFileSync(`/proc/${this.child.pid}/cgroup`, 'latin1');
    } catch {
      return false;
    }
    this.#joined = this.#groups.every((g) => text.includes(g));
    return this.#joined;
  }

  /** Still waiting for a command (not exited, not started). */
  get usable(): boolean {
    return !this.#exited && !this.#started && this.child.pid !== undefined;
  }

  /**
   * Hands the launcher its command: `argv` is exec'd with fds 0 (/dev/null) .. `maxFd`;
   * the service's ends of the fds past it are closed here.
   */
  start(argv: readonly string[], maxFd: number): void {
    this.#started = true;
    this.child.ref();
    for (const s of this.io) (s as { ref?: () => void } | null)?.ref?.();
    writeFileSync(this.#file, [String(maxFd), ...argv].join('\0') + '\0', { mode: 0o600 });
    for (let fd = maxFd + 1; fd < this.io.length; fd++) this.io[fd]?.destroy();
    this.io[0]?.end('g');
  }

  /** Kills an unused launcher (its process group). */
  kill(): void {
    this.#started = true;
    if (this.child.pid === undefined || this.#exited) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // gone
    }
    this.io.forEach((s) => s?.destroy());
  }

  /** Waits (bounded, synchronously) until a killed launcher has left its cgroups (exited: zombie or reaped). */
  waitGone(timeoutMs: number): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    const until = performance.now() + timeoutMs;
    const nap = new Int32Array(new SharedArrayBuffer(4));
    while (performance.now() < until) {
      let state: string;
      try {
        state = /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'latin1'))?.[1] ?? 'Z';
      } catch {
        return;
      }
      if (state === 'Z' || state === 'X') return;
      Atomics.wait(nap, 0, 0, 1);
    }
  }
}

/** Spare launchers per slot, joined to the slot's cgroups while the slot is idle or busy with an earlier run. */
export class LauncherPool {
  readonly #spare = new Map<number, Launcher[]>();
  readonly #procs: (slot: number) => readonly string[];
  #closed = false;

  /** `procs(slot)`: the `cgroup.procs` files a launcher of that slot joins (empty: none). */
  constructor(procs: (slot: number) => readonly string[]) {
    this.#procs = procs;
  }

  /**
   * A spare of the slot that fits `dataFds`: one already in its cgroups if any,
   * else the oldest (the run waits for its join); a fresh one (joining now) if
   * none fits. Call while holding the slot.
   */
  take(slot: number, dataFds: number): Launcher {
    const spares = this.#live(slot);
    const fits = spares.filter((l) => l.dataFds >= dataFds);
    const pick = fits.find((l) => l.joined) ?? fits[0];
    if (pick !== undefined) {
      spares.splice(spares.indexOf(pick), 1);
      return pick;
    }
    return Launcher.spawn(this.#procs(slot), dataFds, false);
  }

  /** Tops the slot up to SPARES_PER_SLOT spare launchers (at start-up and when a run leaves the slot). */
  refill(slot: number): void {
    if (this.#closed) return;
    const spares = this.#live(slot);
    while (spares.length < SPARES_PER_SLOT) spares.push(Launcher.spawn(this.#procs(slot), SPARE_DATA_FDS, true));
  }

  /** Kills the slot's spares (a slot left idle; its next run starts a fresh launcher, joining then). */
  retire(slot: number): void {
    for (const l of this.#spare.get(slot) ?? []) l.kill();
    this.#spare.delete(slot);
  }

  /** The slot's spares that can still take a run (dead ones, e.g. a failed join, are dropped). */
  #live(slot: number): Launcher[] {
    const spares = (this.#spare.get(slot) ?? []).filter((l) => l.usable);
    this.#spare.set(slot, spares);
    return spares;
  }

  /** Kills the spare launchers and waits (at most ~1 s) until they have left their cgroups. */
  close(): void {
    this.#closed = true;
    const all = [...this.#spare.values()].flat();
    this.#spare.clear();
    for (const l of all) l.kill();
    for (const l of all) l.waitGone(1000);
  }
}
