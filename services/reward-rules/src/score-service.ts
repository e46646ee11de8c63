import type { BudgetPool } from './adapters/worker-pool/budget-pool.ts';
import { AppError, ErrorCode, type ErrorBody, type Logger, type RewardCallContext, type ScoreItem, type ServiceMetrics } from '@rl/service-kit';
import type { listDataSources } from './core/registry.ts';
import { toItemError } from './core/item-error.ts';
import type { BatchOutput, SlotResult } from './core/score-batch.ts';

/** The one entry point both edges (HTTP and NATS) call. */
export interface ScoreService {
  /** Scores a raw `ScoreRequest` body; resolves with the `ScoreResponse` JSON text. */
  score(body: Uint8Array | string, ctx?: RewardCallContext): Promise<string>;
  /** verl's dispatch table as this service applies it. */
  dataSources(): Promise<ReturnType<typeof listDataSources>>;
}

/** Forwards items to the service behind `subject`; throws an AppError when it cannot be reached. */
export type RunRemote = (subject: string, items: ScoreItem[], ctx: RewardCallContext) => Promise<SlotResult[]>;

/** Dependencies of {@link createScoreService}, built in `main.ts`. */
export interface ScoreServiceDeps {
  pool: Pick<BudgetPool, 'run'>;
  runRemote: RunRemote;
  metrics: ServiceMetrics;
  logger: Logger;
}

/**
 * Binds the worker pool (which parses, validates and scores) to the forwarder
 * for code data sources and to the metrics. The common case, no remote items,
 * splices the workers' JSON straight into the response without re-parsing it.
 */
export function createScoreService({ pool, runRemote, metrics, logger }: ScoreServiceDeps): ScoreService {
  return {
    async score(body, ctx = {}) {
      logger.debug({ bytes: body.length, requestId: ctx.requestId }, 'batch received');
      const out = (await pool.run(body, ctx.signal)) as BatchOutput;
      for (const [code, n] of Object.entries(out.errorCodes)) metrics.itemErrors.inc({ code }, n);
      // The rule scorers are pure functions of the item; forwarded code items ran in a sandbox under time limits.
      if (out.remote.length === 0) return `{"results":${out.resultsJson},"deterministic":true}`;
      const results = JSON.parse(out.resultsJson) as SlotResult[];
      await mergeRemote(results, out.remote, runRemote, ctx, metrics);
      return JSON.stringify({ results });
    },
    // Loaded on first use: the scorers (mathjs among them) live in the workers, not on the event loop.
    dataSources: async () => (await import('./core/registry.ts')).listDataSources(),
  };
}

async function mergeRemote(
  results: SlotResult[],
  remote: BatchOutput['remote'],
  runRemote: RunRemote,
  ctx: RewardCallContext,
  metrics: ServiceMetrics,
): Promise<void> {
  const bySubject = Map.groupBy(remote, (r) => r.subject);
  await Promise.all(
    [...bySubject].map(async ([subject, group]) => {
      let slots: SlotResult[];
      try {
        slots = await runRemote(
          subject,
          group.map((g) => g.item),
          ctx,
        );
      } catch (err) {
        const error = remoteFailure(err, subject);
        slots = group.map(() => ({ error }));
      }
      group.forEach((g, k) => {
        const slot = slots[k] ?? { error: { code: ErrorCode.Internal, message: `${subject} returned too few results` } };
        results[g.index] = slot;
        if ('error' in slot) metrics.itemErrors.inc({ code: slot.error.code });
      });
    }),
  );
}

/** A forwarding failure: nobody listening is `sandbox_unavailable`, anything else keeps its code. */
function remoteFailure(err: unknown, subject: string): ErrorBody {
  if (err instanceof AppError && err.code === ErrorCode.NoResponders) {
    return { code: ErrorCode.SandboxUnavailable, message: `no service is serving ${subject}; start reward-sandbox to score code data sources` };
  }
  return toItemError(err).error;
}
