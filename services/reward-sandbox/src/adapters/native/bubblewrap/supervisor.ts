// The bash script that runs as the sandbox's main process. It compiles (if the
// language needs it), runs the program under its rlimits, kills whatever the
// program left behind, and streams fetch_files back, reporting each step on
// fd 3 so the host can time the phases:
//   S            sandbox is up (setup done)
//   C <rc>       compile finished with exit status rc
//   R <rc>       run finished with exit status rc
//   T            followed by bash `times` (2 lines): the second is the CPU used by
//                the compile/run children so far, e.g. `0m1.234s 0m0.010s`
//   F <i>        fetch file i follows as one base64 line
// fd 4/5 carry the compiler's stdout/stderr. The program runs with only 0-2 open.
// The program shares the supervisor's uid but cannot reach the channel: fd 3 is
// closed in the program's subshell; seccomp denies ptrace, pidfd_getfd and
// process_vm_*; and the supervisor runs from an execute-only shell
// (supervisor-shell.ts), which makes it non-dumpable, so its /proc/<pid>/mem, fd/
// and environ are closed to the program. The host still treats the channel as
// untrusted, as a second line: every time is taken on the host's clock when a
// marker arrives; S and C precede the program; R only ever lengthens the measured
// time and never extends a deadline; a forged file is no worse than a file the
// program wrote; the channel is capped.

import { shellQuote } from '../plan/paths.ts';

/** Fds given to the sandbox process (Node's stdio indexes); `info` is bwrap's --info-fd, data fds feed --file. */
export const FD = { report: 3, compileOut: 4, compileErr: 5, info: 6, firstData: 7 } as const;

/** One step of the script. */
export interface Step {
  argv: string[];
  env?: Record<string, string>;
  /** `ulimit ...` commands applied in the subshell before exec. */
  limits: string;
}

/** Inputs to the script. */
export interface SupervisorSpec {
  compile?: Step;
  run: Step;
  /**
   * The run cgroup's `cgroup.procs` in the sandbox: the run's subshell moves
   * itself there before its limits and exec, so the program and what it forks
   * are charged to the program's budget (../slots/cgroup.ts), and the compiler and this
   * supervisor are not. A failed move stops the run (exit 125): no program runs
   * outside its budget.
   */
  joinCgroup?: string;
  /** Program stdin: a file path inside the sandbox, or null for /dev/null. */
  stdinPath: string | null;
  /** Work-dir-relative paths to stream back after the run. */
  fetch: string[];
}

// `times` must run in this shell (a forked subshell starts with zero child times):
// it prints the shell's own and its waited-for children's user/sys CPU on two lines.
const TIMES = `{ printf 'T\\n'; times; } >&3`;

function subshell(step: Step, joinCgroup?: string): string {
  const env = Object.entries(step.env ?? {}).map(([k, v]) => `export ${k}=${shellQuote(v)}`);
  const words = step.argv.map(shellQuote).join(' ');
  const join = joinCgroup === undefined ? [] : [`{ echo 0 > ${shellQuote(joinCgroup)} || exit 125; }`];
  return `( ${[...join, step.limits, ...env, `exec ${words}`].join(' && ')} )`;
}

/** Builds the supervisor script (run with `bash --norc --noprofile -c`). */
export function supervisorScript(spec: SupervisorSpec): string {
  // The program's stderr is parked on fd 6 (bwrap has closed its info fd there) and
  // the shell's own stderr goes to /dev/null, so bash's job notices ("Killed",
  // "Segmentation fault") do not reach the program's stderr (SandboxFusion shows none).
  const lines: string[] = [`exec 6>&2 2>/dev/null`, `printf 'S\\n' >&3`];
  if (spec.compile !== undefined) {
    // The compiler gets no stdin and its own output channels.
    lines.push(
      `${subshell(spec.compile)} </dev/null >&4 2>&5 3>&- 4>&- 5>&- 6>&-`,
      `c=$?`,
      `exec 4>&- 5>&-`,
      `printf 'C %d\\n' "$c" >&3`,
      TIMES,
      `[ "$c" -eq 0 ] || exit "$c"`,
    );
  } else {
    lines.push(`exec 4>&- 5>&-`);
  }
  const stdin = spec.stdinPath === null ? '/dev/null' : shellQuote(spec.stdinPath);
  lines.push(
    `${subshell(spec.run, spec.joinCgroup)} <${stdin} 2>&6 3>&- 6>&-`,
    `r=$?`,
    `printf 'R %d\\n' "$r" >&3`,
    TIMES,
    // Everything else in the namespace belongs to the program: stop it before reading its files.
    `kill -9 -1 2>/dev/null`,
  );
  spec.fetch.forEach((path, i) => {
    const p = shellQuote(path);
    lines.push(`if [ -f ${p} ]; then printf 'F ${i}\\n' >&3; base64 -w0 -- ${p} >&3; printf '\\n' >&3; fi`);
  });
  lines.push(`exit "$r"`);
  return lines.join('\n');
}
