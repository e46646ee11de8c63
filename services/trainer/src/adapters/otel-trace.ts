// The loop's TracePort on OpenTelemetry (through @rl/service-kit's span
// helpers): with telemetry off the spans are no-ops.
import { bindActiveContext, SpanAttr, withSpan } from '@rl/service-kit';
import type { TracePort } from '../core/controller/ports.ts';

/** One trace per training step: `root` starts a new trace whatever is active, `span` nests in the current one. */
export function createOtelTrace(): TracePort {
  return {
    root: (name, at, fn) =>
      withSpan(
        name,
        {
          root: true,
          attributes: { [SpanAttr.JobId]: at.job, [SpanAttr.Step]: at.step, ...(at.epoch !== undefined && { [SpanAttr.Epoch]: at.epoch }) },
        },
        () => fn(),
      ),
    span: (name, fn) => withSpan(name, {}, () => fn()),
    bind: bindActiveContext,
  };
}
