import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@rl/service-kit';
import { expectAppError } from '@rl/service-kit/testing';
import { lookupUser, runAsIdentity } from './run-as.ts';

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\ntrainer:x:1001:1002::/home/trainer:/bin/sh\n';

describe('the run-as user', () => {
  it('is looked up by name, or given as uid:gid', () => {
    expect(lookupUser('nobody', PASSWD)).toEqual({ user: 'nobody', uid: 65534, gid: 65534 });
    expect(lookupUser('trainer', PASSWD)).toEqual({ user: 'trainer', uid: 1001, gid: 1002 });
    expect(lookupUser('2000:3000', PASSWD)).toEqual({ user: '2000:3000', uid: 2000, gid: 3000 });
    expect(expectAppError(() => lookupUser('ghost', PASSWD), ErrorCode.InvalidConfig).message).toMatch(/^TRAINER_RUN_AS: no user "ghost"/);
  });

  it('applies only to a trainer started as root, and "root" keeps root on purpose', () => {
    expect(runAsIdentity('nobody', 1000)).toBeNull();
    expect(runAsIdentity('root', 0)).toBeNull();
    expect(runAsIdentity('nobody', 0)?.uid).toBeGreaterThan(0);
    expect(expectAppError(() => runAsIdentity('0:5', 0), ErrorCode.InvalidConfig).message).toMatch(/is uid 0/);
  });
});
