import { AppError } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { RunCodeRequest } from '../schemas.ts';
import { checkRelativePath, toRunCodeResponse, toRunSpec } from './fusion.ts';
import type { CommandResult } from './runner.ts';

const defaults = { defaultMemoryMb: 1024, maxOutputBytes: 1000 };
const cmd = (over: Partial<CommandResult>): CommandResult => ({ status: 'Finished', execution_time: 0.01, return_code: 0, stdout: '', stderr: '', ...over });

describe('RunCodeRequest (SandboxFusion defaults)', () => {
  it('fills SandboxFusion’s defaults', () => {
    expect(RunCodeRequest.parse({ code: 'print(1)', language: 'python' })).toEqual({
      compile_timeout: 10,
      run_timeout: 10,
      memory_limit_MB: -1,
      code: 'print(1)',
      stdin: null,
      language: 'python',
      files: {},
      fetch_files: [],
    });
  });

  it('rejects unknown languages and missing code, naming the field', () => {
    const r = RunCodeRequest.safeParse({ language: 'cobol' });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(expect.arrayContaining(['code', 'language']));
  });
});

describe('toRunSpec', () => {
  it('converts seconds to ms, -1 memory to the default and base64 files to bytes', () => {
    const spec = toRunSpec(RunCodeRequest.parse({ code: 'x', language: 'python', run_timeout: 1.5, files: { 'a/b.txt': btoa('hi'), empty: null } }), defaults);
    expect(spec).toMatchObject({ runTimeoutMs: 1500, compileTimeoutMs: 10_000, memoryLimitMb: 1024, maxOutputBytes: 1000 });
    expect(spec.files).toEqual({ 'a/b.txt': new Uint8Array([104, 105]), empty: null });
  });

  it.each(['../etc/passwd', '/etc/passwd', 'a/../../b', './a', 'a//b', 'a\\b'])('rejects the path %j', (path) => {
    expect(() => checkRelativePath(path, 'file path')).toThrow(AppError);
  });

  it('accepts absolute fetch_files as SandboxFusion does, still without traversal', () => {
    const req = (fetch_files: string[]) => RunCodeRequest.parse({ code: 'x', language: 'python', fetch_files });
    expect(toRunSpec(req(['/mnt/b', '/tmp/work/x', 'y']), defaults).fetchFiles).toEqual(['/mnt/b', '/tmp/work/x', 'y']);
    for (const bad of ['/tmp/../etc/passwd', '/', '//x', '/a/./b']) expect(() => toRunSpec(req([bad]), defaults)).toThrow(AppError);
  });

  it('rejects bad base64 and traversal in fetch_files with a 400', () => {
    expect(() => toRunSpec(RunCodeRequest.parse({ code: 'x', language: 'python', files: { a: '%%%' } }), defaults)).toThrow(/base64/);
    try {
      toRunSpec(RunCodeRequest.parse({ code: 'x', language: 'python', fetch_files: ['../x'] }), defaults);
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).status).toBe(400);
    }
  });
});

describe('toRunCodeResponse (SandboxFusion parse_run_status)', () => {
  const out = (compile: CommandResult | null, run: CommandResult | null, notes: string[] = []) =>
    toRunCodeResponse({ compile_result: compile, run_result: run, files: {}, notes });

  it('is Success when every command finished with code 0', () => {
    expect(out(null, cmd({ stdout: 'hi\n' }))).toMatchObject({ status: 'Success', message: '' });
  });

  it('is Failed on a non-zero exit or a time limit, not SandboxError', () => {
    expect(out(null, cmd({ return_code: 1 })).status).toBe('Failed');
    expect(out(null, cmd({ status: 'TimeLimitExceeded', return_code: null })).status).toBe('Failed');
    expect(out(cmd({ return_code: 1, stderr: 'syntax' }), null).status).toBe('Failed');
  });

  it('is SandboxError with the command stderr when a command errored', () => {
    expect(out(null, cmd({ status: 'Error', stderr: 'bwrap failed' }))).toMatchObject({ status: 'SandboxError', message: 'bwrap failed' });
  });

  it('states output caps in the message', () => {
    expect(out(null, cmd({}), ['stdout truncated at 1000 bytes']).message).toBe('stdout truncated at 1000 bytes');
  });
});
