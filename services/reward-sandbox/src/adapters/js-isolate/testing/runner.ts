// The isolate runner as the unit tests use it: the production start limit (10 s
// from fork to ready) is a health check for a service; a test host running
// several suites and CPU hogs at once can exceed it while starting eight workers
// together, so tests give worker start-up a limit that only a hang reaches.

import { IsolateRunner, type IsolateRunnerOptions } from '../index.ts';

export function testIsolateRunner(options: IsolateRunnerOptions = {}): IsolateRunner {
  return new IsolateRunner({ workerStartTimeoutMs: 60_000, ...options });
}
