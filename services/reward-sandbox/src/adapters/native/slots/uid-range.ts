// The sandboxes' host uid range must belong to nobody else: not to an account
// or group (a sandbox could then read that account's files), and not to a
// subordinate-id range in /etc/subuid or /etc/subgid (a rootless container of
// that user could map its processes onto the sandboxes' uids). Checked once at
// start-up; a collision stops the service from offering native sandboxes.

import { readFileSync } from 'node:fs';
import { CodedError } from '@rl/service-kit';

/** Stable codes of {@link UidRangeError}. */
export const UidRangeProblem = {
  /** The range does not fit in a 32-bit uid space below the overflow uid. */
  OutOfBounds: 'uid_range_out_of_bounds',
  /** An account, group or subordinate-id range already uses part of the range. */
  InUse: 'uid_range_in_use',
} as const;
/** Union of {@link UidRangeProblem} codes. */
export type UidRangeProblem = (typeof UidRangeProblem)[keyof typeof UidRangeProblem];

/** The configured sandbox uid range cannot be used. */
export class UidRangeError extends CodedError<UidRangeProblem> {
  override readonly name = 'UidRangeError';
}

/** Files the check reads (overridable for tests). */
export interface IdFiles {
  passwd: string;
  group: string;
  subuid: string;
  subgid: string;
}

/** The system's id databases. */
export const SYSTEM_ID_FILES: IdFiles = { passwd: '/etc/passwd', group: '/etc/group', subuid: '/etc/subuid', subgid: '/etc/subgid' };

// 65534 (nobody) and 2^32-1 (the invalid id) are never handed out as sandbox uids.
const UID_LIMIT = 2 ** 32 - 1;

function readLines(path: string): string[] {
  try {
    // These files are a few KiB; a huge one is a broken system, not a reason to hang.
    return readFileSync(path, 'utf8')
      .slice(0, 16 << 20)
      .split('\n');
  } catch {
    return []; // absent (no subordinate ids configured): nothing can collide
  }
}

/** Throws {@link UidRangeError} when [base, base + count) overlaps an account, a group or a subordinate range. */
export function checkUidRange(base: number, count: number, files: IdFiles = SYSTEM_ID_FILES): void {
  const end = base + count; // exclusive
  if (base < 1000 || end > UID_LIMIT || (base <= 65534 && 65534 < end)) {
    throw new UidRangeError(UidRangeProblem.OutOfBounds, `sandbox uids ${base}..${end - 1} must lie above 999, avoid 65534 and stay below ${UID_LIMIT}`);
  }
  const hits: string[] = [];
  const ids = (path: string, kind: string) => {
    for (const line of readLines(path)) {
      const [name, , id] = line.split(':');
      const n = Number(id);
      if (name && Number.isInteger(n) && n >= base && n < end) hits.push(`${kind} ${name} (${n})`);
    }
  };
  const ranges = (path: string) => {
    for (const line of readLines(path)) {
      const [owner, start, length] = line.split(':');
      const s = Number(start);
      const l = Number(length);
      if (owner && Number.isInteger(s) && Number.isInteger(l) && s < end && base < s + l) hits.push(`${path} range of ${owner} (${s}..${s + l - 1})`);
    }
  };
  ids(files.passwd, 'account');
  ids(files.group, 'group');
  ranges(files.subuid);
  ranges(files.subgid);
  if (hits.length > 0) {
    throw new UidRangeError(UidRangeProblem.InUse, `sandbox uids ${base}..${end - 1} are in use: ${hits.join(', ')}; set SANDBOX_UID_BASE to a free range`);
  }
}
