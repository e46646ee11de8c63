// The slot red-team cases (testing/red-team.ts) against both native
// back-ends, plus a control: two runs forced onto one host uid do share the
// budgets, so the isolation case can fail.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BwrapRunner } from '../bubblewrap/bubblewrap-runner.ts';
import { ZygoteRunner } from '../zygote/zygote-runner.ts';
import { holdUserBudgets, probeUserBudgets, redTeamCases } from './testing/red-team.ts';
import { SlotPool } from './slot-pool.ts';

const native = new BwrapRunner({ slots: new SlotPool({ size: 2, uidBase: 2_000_000_100 }) });
const zygote = new ZygoteRunner({ slots: native.slots, cgroups: native.cgroups, host: native.host, seccomp: native.seccomp! });
const root = process.getuid?.() === 0;
const usable = native.languages().includes('python') && root;
const skipWhy = !root ? "not root (the gates read other uids' /proc/<pid>/fd)" : !usable ? `no python sandbox: ${native.host.problems.join('; ')}` : null;
if (skipWhy !== null) console.warn(`slot red-team cases skipped: ${skipWhy}`);
if (usable && native.cgroups === null) console.warn(`memory cgroup cases skipped: ${native.host.problems.join('; ')}`);
if (usable && !native.host.privateMounts) console.warn('SysV and inode cases skipped for bwrap: no root launcher (unshare/mount) here');

beforeAll(async () => {
  if (usable) await zygote.warm();
});
afterAll(async () => {
  await zygote.close();
  native.close();
});

const target = { cgroups: native.cgroups !== null, shmMb: 64 };

describe.skipIf(!usable)('slot red team: bubblewrap per run', () => {
  redTeamCases({ ...target, runner: () => native, ipcAndInodeCaps: native.host.privateMounts });
});

describe.skipIf(!usable)('slot red team: python zygote', () => {
  redTeamCases({ ...target, runner: () => zygote, ipcAndInodeCaps: true });
});

describe.skipIf(!usable)('slot red team: control', () => {
  it('two runs on one host uid do share the budgets (what slots prevent)', async () => {
    // Two runners, one slot each, the same uid: the layout every run had before slots.
    const a = new BwrapRunner({ cgroups: false, slots: new SlotPool({ size: 1, uidBase: 2_000_000_200 }) });
    const b = new BwrapRunner({ cgroups: false, slots: new SlotPool({ size: 1, uidBase: 2_000_000_200 }) });
    try {
      const holder = await holdUserBudgets(a);
      try {
        expect(await probeUserBudgets(b)).toBe('inotify 24\npipe 8192\n'); // EMFILE; a pipe over pipe-user-pages-soft
      } finally {
        await holder.release();
      }
    } finally {
      a.close();
      b.close();
    }
  }, 60_000);
});
