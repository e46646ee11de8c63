// The plan of a native run: every limit, file, tmpfs size and cgroup budget both
// native back-ends apply, computed without a sandbox.
import { describe, expect, it } from 'vitest';
import { testRunSpec } from '../../../core/testing/run-spec.ts';
import { LANGUAGES } from '../languages/index.ts';
import { TMPFS_INODES, ipcSysctls } from './limits.ts';
import { runCgroupBytes, slotCgroupBytes } from './memory-budget.ts';
import { STDIN_PATH, WORK_DIR } from './paths.ts';
import { NATIVE_RUN_DEFAULTS, type PlanContext, baseSandbox, planNativeRun } from './run-plan.ts';

const MiB = 1024 * 1024;
const STEM = 'tmpabcdefgh';
const context = (language: string, extra: Partial<PlanContext> = {}): PlanContext => ({
  language: LANGUAGES[language]!,
  tools: { python: '/usr/bin/python3', gxx: '/usr/bin/g++', php: '/usr/bin/php', java: '/usr/bin/java', javac: '/usr/bin/javac', kotlinc: '/usr/bin/kotlinc' },
  settings: NATIVE_RUN_DEFAULTS,
  stem: STEM,
  accountFiles: true,
  ...extra,
});
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('planNativeRun', () => {
  it('places the accounts, stdin, the inputs and the code last, in that order', () => {
    const spec = testRunSpec('python', 'print(1)', { stdin: 'in', files: { 'd/a.txt': Buffer.from('A'), 'b.txt': null } });
    const plan = planNativeRun(spec, context('python'));
    expect(plan.source).toBe(`${STEM}.py`);
    expect(plan.files.map((f) => [f.dest, f.perms])).toEqual([
      ['/etc/passwd', '0644'],
      ['/etc/group', '0644'],
      ['/etc/hosts', '0444'],
      [STDIN_PATH, '0444'],
      [`${WORK_DIR}/d/a.txt`, '0644'],
      [`${WORK_DIR}/b.txt`, '0644'],
      [`${WORK_DIR}/${STEM}.py`, '0644'],
    ]);
    expect(text(plan.files[0]!.content)).toContain(`sandbox:x:${NATIVE_RUN_DEFAULTS.sandboxUid}:`);
    expect(text(plan.files.at(-1)!.content)).toBe('print(1)');
    expect(plan.stdinPath).toBe(STDIN_PATH);
  });

  it('leaves the account files to a sandbox that has them (the zygote) and has no stdin file without stdin', () => {
    const plan = planNativeRun(testRunSpec('python', 'x'), context('python', { accountFiles: false }));
    expect(plan.files.map((f) => f.dest)).toEqual([`${WORK_DIR}/${STEM}.py`]);
    expect(plan.stdinPath).toBeNull();
  });

  it('gives a program without a compile step its rlimits and one slot budget throughout', () => {
    const plan = planNativeRun(testRunSpec('python', 'x', { memoryLimitMb: 300, runTimeoutMs: 2_500 }), context('python'));
    expect(plan.compile).toBeNull();
    expect(plan.run.argv).toEqual(['/usr/bin/python3', `${STEM}.py`]);
    expect(plan.run.limits).toEqual({ processes: 64, fileBytes: 64 * MiB, openFiles: 1024, stackMb: 8, addressSpaceMb: 300, cpuSeconds: 4 });
    const tmpBytes = plan.tmpfs.tmp.bytes;
    expect(plan.cgroup).toEqual({
      slotBytes: slotCgroupBytes(300, tmpBytes),
      runSlotBytes: slotCgroupBytes(300, tmpBytes),
      runBytes: runCgroupBytes(300),
      maxTasks: 80,
    });
  });

  it('gives a compiler at least the compile budget, and the slot the compiler budget until the program runs', () => {
    const spec = testRunSpec('cpp', 'int main(){}', { memoryLimitMb: 128, compileTimeoutMs: 9_000 });
    const plan = planNativeRun(spec, context('cpp'));
    expect(plan.compile?.argv.slice(0, 3)).toEqual(['/usr/bin/g++', '-std=c++17', `${STEM}.cpp`]);
    expect(plan.compile?.limits).toMatchObject({ addressSpaceMb: 2048, cpuSeconds: 10 });
    expect(plan.run.limits).toMatchObject({ addressSpaceMb: 128, cpuSeconds: 6 });
    const tmpBytes = plan.tmpfs.tmp.bytes;
    expect(plan.cgroup.slotBytes).toBe(slotCgroupBytes(2048, tmpBytes));
    expect(plan.cgroup.runSlotBytes).toBe(slotCgroupBytes(128, tmpBytes));
    expect(plan.cgroup.runBytes).toBe(runCgroupBytes(128));
    // A limit above the compile floor raises the compiler's too.
    expect(planNativeRun({ ...spec, memoryLimitMb: 4096 }, context('cpp')).compile?.limits.addressSpaceMb).toBe(4096);
  });

  it('keeps a run step that compiles (kotlinc -script) at its language floor', () => {
    const plan = planNativeRun(testRunSpec('kotlin_script', 'println(1)', { memoryLimitMb: 128 }), context('kotlin_script'));
    expect(plan.cgroup.runBytes).toBe(runCgroupBytes(128, 512));
    expect(plan.cgroup.runSlotBytes).toBe(slotCgroupBytes(512, plan.tmpfs.tmp.bytes));
  });

  it("uses a language's fixed file name and rewrites its code as the language asks", () => {
    expect(planNativeRun(testRunSpec('java', 'class A {}'), context('java')).source).toBe('Main.java');
    const php = planNativeRun(testRunSpec('php', '  echo 1;'), context('php'));
    expect(php.source).toBe(`${STEM}.php`);
    expect(text(php.files.at(-1)!.content)).toBe('<?php\necho 1;');
  });

  it('grows /tmp by the whole MiBs its files take, and its inode cap by the files under /tmp', () => {
    const big = new Uint8Array(1.5 * MiB);
    const plan = planNativeRun(testRunSpec('python', 'x', { stdin: 's', files: { 'a.bin': big } }), context('python', { accountFiles: false }));
    expect(plan.tmpfs.tmp).toEqual({ bytes: (256 + 2) * MiB, inodes: TMPFS_INODES.tmp + 2 });
    expect(plan.tmpfs.shm).toEqual({ bytes: 64 * MiB, inodes: TMPFS_INODES.shm });
    expect(plan.ipcSysctls).toEqual(ipcSysctls(64 * MiB));
  });

  it('keeps the fetch_files that can name a sandbox file, under the names the request used', () => {
    const plan = planNativeRun(testRunSpec('python', 'x', { fetchFiles: ['out//a.txt', '/mnt/b', '/etc/passwd'] }), context('python'));
    expect(plan.fetch).toEqual([
      ['out//a.txt', 'out/a.txt'],
      ['/mnt/b', '/mnt/b'],
    ]);
  });

  it('refuses an input path that escapes the work dir', () => {
    expect(() => planNativeRun(testRunSpec('python', 'x', { files: { '../x': null } }), context('python'))).toThrow(/invalid path/);
  });

  it('takes the runner settings it is given', () => {
    const settings = { tmpMb: 16, shmMb: 8, compileMemoryMb: 512, processes: 10, sandboxUid: 1000 };
    const plan = planNativeRun(testRunSpec('cpp', 'x', { memoryLimitMb: 64 }), context('cpp', { settings }));
    expect(plan.compile?.limits).toMatchObject({ addressSpaceMb: 512, processes: 10 });
    expect(plan.cgroup.maxTasks).toBe(26);
    expect(plan.tmpfs.shm.bytes).toBe(8 * MiB);
    expect(text(plan.files[0]!.content)).toContain('sandbox:x:1000:1000:');
  });
});

describe('baseSandbox', () => {
  it("is a run's /tmp before its files, its /dev/shm and its IPC limits", () => {
    const base = baseSandbox(NATIVE_RUN_DEFAULTS);
    const plan = planNativeRun(testRunSpec('python', ''), context('python', { accountFiles: false }));
    expect(base.tmpfs.tmp).toEqual({ bytes: 256 * MiB, inodes: TMPFS_INODES.tmp });
    expect(base.tmpfs.shm).toEqual(plan.tmpfs.shm);
    expect(base.ipcSysctls).toEqual(plan.ipcSysctls);
  });
});
