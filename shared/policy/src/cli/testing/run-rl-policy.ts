// `rl-policy` as a real child process, for the CLI's and the engines' tests.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/rl-policy.ts', import.meta.url));

/** What a run of the CLI left. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `rl-policy args` with `input` on stdin; the child is killed after `timeoutMs`. */
export function rlPolicy(args: string[], input: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {}); // a usage error exits before reading stdin
    child.stdin.end(input);
  });
}
