// The generation service's server span: every rollout call, over NATS or HTTP,
// runs in a `rollout.generate` span continuing the caller's `traceparent` (a
// trainer step's trace), so tool calls made from it (code_interpreter on the
// sandbox, NATS env ports) join that trace too.
import { SpanAttr, dataSourceAttributes, withServerSpan } from '@rl/service-kit';
import { runRollouts, type OnSlot, type RolloutDeps } from './core/rollout/run-rollouts.ts';
import type { RolloutRequest } from './schemas/rollout.ts';
import { ROLLOUT_SUBJECT } from './subjects.ts';

/** {@link runRollouts} inside a server span named after the NATS subject (`rollout.generate`). */
export function tracedRollouts(
  req: RolloutRequest,
  deps: RolloutDeps,
  signal: AbortSignal,
  edge: 'nats' | 'http',
  traceparent: string | undefined,
  onSlot?: OnSlot,
): ReturnType<typeof runRollouts> {
  const attributes = {
    ...dataSourceAttributes(req.samples),
    'rl.n': req.n,
    [SpanAttr.Edge]: edge,
    ...(req.model_version !== undefined && { [SpanAttr.ModelVersion]: req.model_version }),
  };
  return withServerSpan(ROLLOUT_SUBJECT, traceparent, attributes, () => runRollouts(req, deps, signal, onSlot));
}
