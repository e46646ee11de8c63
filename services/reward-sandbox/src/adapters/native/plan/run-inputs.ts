// What every native run puts in its sandbox, shared by the per-run bubblewrap
// runner and the python zygote: the validated input files, the code's file
// name, and account files naming the sandbox uid.
import { randomBytes } from 'node:crypto';
import type { RunSpec } from '../../../core/runner.ts';
import { safeRelativePath } from './paths.ts';

/** Names for `id`, getpwuid() and friends, without exposing the host's accounts. */
export const passwdFile = (uid: number) => `root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:${uid}:${uid}:sandbox:/tmp:/bin/bash\n`;
export const groupFile = (uid: number) => `root:x:0:\nsandbox:x:${uid}:\n`;
/**
 * /etc/hosts: without one `localhost` does not resolve, so a program that starts
 * a server and queries itself by name fails (it does under SandboxFusion). Only
 * loopback names: the sandbox has no other network.
 */
export const HOSTS_FILE = '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tsandbox\n';

/** SandboxFusion's NamedTemporaryFile-style stem for the code's file name (`tmpXXXXXXXX`; run-plan.ts adds the extension). */
export function sourceStem(): string {
  return `tmp${randomBytes(6).toString('base64url').toLowerCase().replaceAll('-', '_')}`;
}

/** Validated input files; throws on unsafe paths or a file that is also used as a directory. */
export function checkedInputs(files: RunSpec['files']): Array<[string, Uint8Array]> {
  const out = new Map<string, Uint8Array>();
  for (const [path, content] of Object.entries(files)) out.set(safeRelativePath(path), content ?? new Uint8Array());
  for (const path of out.keys()) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (out.has(parts.slice(0, i).join('/'))) throw new Error(`invalid files: ${JSON.stringify(path)} is inside another file`);
    }
  }
  return [...out];
}

/** The response-message note for a stream cut at its cap. */
export function truncationNote(stream: string, cap: number, written: number): string {
  return `${stream} truncated at ${cap} bytes (${written} bytes written)`;
}
