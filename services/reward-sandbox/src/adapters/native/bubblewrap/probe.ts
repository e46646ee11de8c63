// Start-up probing: how to launch bwrap on this host, and which toolchains work
// inside the sandbox. Done once, synchronously, at construction (~10-50 ms).
//
// Launch mode. RLIMIT_NPROC is only enforced for a non-root *host* uid: the
// kernel exempts tasks whose real uid is host root even inside a user namespace,
// and bwrap started by root maps the sandbox uid onto host root. So when the
// service is root we drop to an unprivileged uid (the run's slot's, see
// ../slots) with setpriv before exec'ing bwrap, which then builds its namespaces the unprivileged way. If unprivileged
// user namespaces are blocked on this host (e.g. an AppArmor policy), bwrap as
// root is used only if `allowRootSandbox` is set: the program is then uid 65534
// without capabilities in its namespace but host root underneath, and the task
// cap only comes from the pids cgroup. Otherwise the runner offers no languages.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import type { LaunchTools } from '../slots/host-launch.ts';
import { SANDBOX_ENV, SANDBOX_NODE, SANDBOX_NODE_PACKAGES, bwrapArgs, detectHostLayout, type HostLayout } from './argv.ts';
import type { Toolchain } from '../languages/index.ts';

/** Result of probing the host. */
export interface HostProbe {
  bwrap: string;
  /**
   * The root-side tools used to drop to a slot's uid before bwrap
   * (../slots/host-launch.ts); null when bwrap runs as the service's own uid
   * (the service is not root, or allowRootSandbox).
   */
  launcher: LaunchTools | null;
  /** True when the sandbox runs under a non-root host uid (RLIMIT_NPROC effective). */
  unprivileged: boolean;
  layout: HostLayout;
  tools: Toolchain;
  /** Why something is unavailable (for logs). */
  problems: string[];
}

/** Probe options. */
export interface ProbeOptions {
  bwrapPath?: string;
  nodePath?: string;
  /** The npm package dir (runtime/node-packages) bound read-only for node runs; absent or not installed: none. */
  nodePackagesPath?: string;
  pythonPath: string;
  /** Host uid the probe's sandbox runs as (the first slot's). */
  probeUid: number;
  /** Sandbox uid inside the namespace. */
  sandboxUid: number;
  allowRootSandbox?: boolean;
  /** The seccomp program runs use: the toolchains are probed under it, so what is found also works under it. */
  seccomp?: Uint8Array;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function firstExecutable(paths: string[]): string | undefined {
  return paths.find(executable);
}

const TOOL_SCRIPT = (python: string) => `
p() { printf '%s=%s\\n' "$1" "$2"; }
if [ -x '${python}' ]; then p python '${python}'
  '${python}' -c 'import importlib.util as u, sys; sys.exit(u.find_spec("pytest") is None)' 2>/dev/null && p pytest 1; fi
[ -x /bin/bash ] && p bash /bin/bash
if g=$(command -v g++); then p gxx "$g"
  for l in crypto ssl pthread; do for e in so a; do case "$(g++ -print-file-name=lib$l.$e)" in /*) p lib "-l$l"; break;; esac; done; done; fi
if [ -x ${SANDBOX_NODE} ] && ${SANDBOX_NODE} -e 0 2>/dev/null; then p node ${SANDBOX_NODE}
  m=${SANDBOX_NODE_PACKAGES}/node_modules
  [ -d $m ] && p nodePackages ${SANDBOX_NODE_PACKAGES}
  [ -r $m/tsx/dist/cjs/index.cjs ] && p tsx $m/tsx/dist/cjs/index.cjs
  [ -r $m/jest/bin/jest.js ] && [ -r ${SANDBOX_NODE_PACKAGES}/jest.config.js ] && p jest $m/jest/bin/jest.js; fi
for t in go java javac rustc php ruby perl sqlite3 Rscript mcs mono gdc iverilog vvp racket scala scalac kotlinc; do g=$(command -v $t) && p $t "$g"; done
g=$(command -v lua || command -v lua5.4) && p lua "$g"
j=/usr/share/java/junit-platform-console-standalone.jar; [ -r $j ] && p junitConsole $j
j=/usr/share/java/javatuples.jar; [ -r $j ] && p javatuples $j
[ -d /usr/share/gocode/src ] && p goLibraries /usr/share/gocode
[ -r /usr/lib/mono/4.5/System.Net.Http.dll ] && p monoNetHttp 1
exit 0`;

/** Probes launch mode, layout and toolchains. Never throws; `problems` says what is missing. */
export function probeHost(opts: ProbeOptions): HostProbe {
  const problems: string[] = [];
  const bwrap = opts.bwrapPath ?? firstExecutable(['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap']) ?? 'bwrap';
  let nodeHostPath: string | undefined;
  if (opts.nodePath !== undefined) {
    try {
      nodeHostPath = realpathSync(opts.nodePath);
    } catch {
      problems.push(`node binary ${opts.nodePath} not found`);
    }
  }
  let nodePackagesHostPath: string | undefined;
  if (opts.nodePackagesPath !== undefined) {
    if (existsSync(`${opts.nodePackagesPath}/node_modules`)) nodePackagesHostPath = realpathSync(opts.nodePackagesPath);
    else problems.push(`npm packages for nodejs/typescript/jest not installed in ${opts.nodePackagesPath} (make deps): jest is unavailable`);
  }
  const layout = detectHostLayout(nodeHostPath, nodePackagesHostPath);
  const root = process.getuid?.() === 0;
  const setpriv = firstExecutable(['/usr/bin/setpriv', '/bin/setpriv']);
  const launcher =
    setpriv === undefined
      ? null
      : {
          setpriv,
          unshare: firstExecutable(['/usr/bin/unshare', '/bin/unshare']) ?? '',
          mount: firstExecutable(['/usr/bin/mount', '/bin/mount']) ?? '',
        };
  const u = String(opts.probeUid);
  const candidates: Array<{ prefix: string[]; launcher: LaunchTools | null; unprivileged: boolean }> = [];
  if (root && launcher !== null)
    candidates.push({ prefix: [launcher.setpriv, `--reuid=${u}`, `--regid=${u}`, '--clear-groups'], launcher, unprivileged: true });
  if (!root || opts.allowRootSandbox === true) candidates.push({ prefix: [], launcher: null, unprivileged: !root });
  // The filter goes in on stdin (fd 0), which bwrap reads to EOF and closes before running the script.
  const seccompFd = opts.seccomp === undefined ? {} : { seccompFd: 0 };
  const args = (script: string) =>
    bwrapArgs({
      layout,
      uid: opts.sandboxUid,
      env: { ...SANDBOX_ENV },
      tmpBytes: 16 << 20,
      shmBytes: 1 << 20,
      files: [],
      infoFd: 3,
      ...seccompFd,
      command: ['/bin/bash', '-c', script],
    });
  for (const c of candidates) {
    const r = spawnSync(c.prefix[0] ?? bwrap, [...c.prefix.slice(1), ...(c.prefix.length > 0 ? [bwrap] : []), ...args(TOOL_SCRIPT(opts.pythonPath))], {
      encoding: 'utf8',
      stdio: [opts.seccomp === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', 'pipe'],
      ...(opts.seccomp !== undefined && { input: opts.seccomp }),
      timeout: 20_000,
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
    if (r.status !== 0) {
      problems.push(`bwrap${c.prefix.length > 0 ? ' as uid ' + u : ''} failed: ${(r.stderr || String(r.error ?? r.status)).trim()}`);
      continue;
    }
    if (root && !c.unprivileged) problems.push('sandbox runs as host root: RLIMIT_NPROC is not enforced (pids cgroup only)');
    if (!root) problems.push('service is not root: every sandbox runs as its uid, so concurrent runs share per-user kernel budgets');
    if (c.launcher !== null && (c.launcher.unshare === '' || c.launcher.mount === '')) {
      problems.push('unshare or mount (util-linux) not found: no inode cap on the sandbox tmpfs and no SysV IPC limits');
    }
    return { bwrap, launcher: c.launcher, unprivileged: c.unprivileged, layout, tools: parseTools(r.stdout), problems };
  }
  if (root && setpriv === undefined) problems.push('setpriv (util-linux) not found: cannot drop root before bwrap');
  return { bwrap, launcher: null, unprivileged: false, layout, tools: {}, problems };
}

/** Probe keys that are just a path, and their Toolchain field. */
const SIMPLE_TOOLS: Readonly<Record<string, Exclude<keyof Toolchain, 'pytest' | 'cppFlags' | 'monoNetHttp'>>> = {
  go: 'go',
  java: 'java',
  javac: 'javac',
  rustc: 'rustc',
  php: 'php',
  ruby: 'ruby',
  perl: 'perl',
  lua: 'lua',
  sqlite3: 'sqlite3',
  Rscript: 'rscript',
  mcs: 'mcs',
  mono: 'mono',
  gdc: 'gdc',
  iverilog: 'iverilog',
  vvp: 'vvp',
  racket: 'racket',
  scala: 'scala',
  scalac: 'scalac',
  kotlinc: 'kotlinc',
  junitConsole: 'junitConsole',
  javatuples: 'javatuples',
  goLibraries: 'goLibraries',
  nodePackages: 'nodePackages',
  tsx: 'tsx',
  jest: 'jest',
};

function parseTools(out: string): Toolchain {
  const t: Toolchain = {};
  const libs: string[] = [];
  for (const line of out.split('\n')) {
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === 'python') t.python = value;
    else if (key === 'pytest') t.pytest = true;
    else if (key === 'monoNetHttp') t.monoNetHttp = true;
    else if (key === 'bash') t.bash = value;
    else if (key === 'gxx') t.gxx = value;
    else if (key === 'lib') libs.push(value);
    else if (key === 'node') t.node = value;
    else if (key in SIMPLE_TOOLS) t[SIMPLE_TOOLS[key]!] = value;
  }
  if (t.gxx !== undefined) t.cppFlags = libs;
  return t;
}
