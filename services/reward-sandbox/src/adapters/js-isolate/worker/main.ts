// Entry of a JavaScript worker process, forked by worker-process.ts with the
// memory limit it serves (its runs' heap limits are at most that) as its only argument. It runs hostile programs in
// isolated-vm isolates, one run at a time, so that whatever a run does to the
// process (a native sort that
// ignores termination, a fatal V8 OOM that parks a thread) stays here: the
// service kills this process and starts another. It trusts nothing it receives,
// and it never outlives the service.

import type ivm from 'isolated-vm';
import { OutputSink } from '../output.ts';
import { Execution } from './execution.ts';
import { IsolateSlot } from './isolate-slot.ts';
import { RunRequest, type WorkerMessage } from './protocol.ts';

// Exits with everything in it, parked isolate threads included: process.exit()
// can wait forever on a thread that ignores termination.
function die(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

function send(message: WorkerMessage): void {
  if (process.send === undefined || !process.connected) die();
  process.send(message, undefined, undefined, (err) => {
    if (err !== null && err !== undefined) die();
  });
}

const memoryMb = Number(process.argv[2]);
if (process.send === undefined || !Number.isInteger(memoryMb) || memoryMb <= 0) {
  process.stderr.write('usage: forked by the service with an IPC channel and <memoryMb>\n');
  process.exit(64);
}
process.on('disconnect', die);

const slot = new IsolateSlot(memoryMb);
let busy = false;

async function serve(raw: unknown): Promise<void> {
  const parsed = RunRequest.safeParse(raw);
  // The service never sends anything else, overlapping runs, or a heap limit past
  // this worker's address-space budget: whoever does is not the service.
  if (!parsed.success || busy || parsed.data.memoryMb > memoryMb) die();
  busy = true;
  const req = parsed.data;
  const started = performance.now();
  const sink = new OutputSink(req.maxOutputBytes, (fd, text, truncated) => send({ type: 'output', id: req.id, fd, text, truncated }));
  let used: ivm.Isolate | null = null;
  try {
    const vm = await slot.take(req.memoryMb);
    const report = await new Execution(vm, req, started, sink, (isolate) => (used = isolate)).run();
    send({ type: 'result', id: req.id, ...report });
    busy = false;
    // A retiring worker is about to be killed; preparing another isolate would only cost time.
    if (report.retire === null) {
      await slot.recycle(used);
      send({ type: 'idle' });
    }
  } catch (err) {
    // The service retires a worker whose run failed this way (its isolate's state is unknown).
    send({ type: 'failed', id: req.id, message: err instanceof Error ? err.message : String(err) });
  }
}

process.on('message', (raw: unknown) => void serve(raw));
await slot.fill();
send({ type: 'ready' });
