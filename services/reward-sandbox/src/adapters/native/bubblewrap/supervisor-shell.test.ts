import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareSupervisorShell } from './supervisor-shell.ts';

describe('prepareSupervisorShell', () => {
  it('makes an execute-only copy of bash in a directory the sandbox uid can traverse, and removes it', () => {
    const shell = prepareSupervisorShell();
    try {
      const st = statSync(shell.hostPath);
      expect(st.mode & 0o777).toBe(0o111);
      expect(st.size).toBe(statSync('/bin/bash').size);
      expect(statSync(shell.hostPath.replace(/\/bash$/, '')).mode & 0o777).toBe(0o711);
    } finally {
      shell.remove();
    }
    expect(() => statSync(shell.hostPath)).toThrow(/ENOENT/);
  });

  it('copies the bytes of the shell it is given', () => {
    const shell = prepareSupervisorShell('/bin/sh');
    try {
      // Mode 0111 stops reading for everyone but root (this test may run as root).
      if (process.getuid?.() === 0) expect(readFileSync(shell.hostPath).equals(readFileSync('/bin/sh'))).toBe(true);
      else expect(() => readFileSync(shell.hostPath)).toThrow(/EACCES/);
    } finally {
      shell.remove();
    }
  });

  it('leaves nothing behind when the shell does not exist', () => {
    const parent = mkdtempSync(join(tmpdir(), 'shell-parent-'));
    try {
      expect(() => prepareSupervisorShell('/nonexistent/bash', parent)).toThrow(/ENOENT/);
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
