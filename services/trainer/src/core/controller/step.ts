// One training step, verl RayPPOTrainer.fit's loop body: generate -> reward ->
// old (and ref) log-probs -> advantages -> actor update -> publish weights.
// Each stage is timed (`timing_s/<stage>`, verl's names) and runs in a span of
// the same name (the step's trace, opened by fit.ts through the TracePort).
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { maskedMean, rowSums, type AlgoConfig, type KlController } from '../algos/index.ts';
import type { DatasetRow } from '../../data/dataset-row.ts';
import type { ScoredSample } from '../../metrics/reward-metrics.ts';
import type { MetricsRecord } from '../../metrics/step-metrics.ts';
// Pure modules, not the barrels (they also hold file I/O).
import { computeExplainedVariance, computeTokenStats } from '../../metrics/batch-metrics.ts';
import { buildStepMetrics } from '../../metrics/step-metrics.ts';
import type { RewardClient } from '@rl/client';
import { buildExperience, row, type ScoredTrajectory } from './experience.ts';
import { dumpEntry, type GenerationDump } from './generation-dump.ts';
import { NO_TRACE, type PadWidths, type PolicyPort, type RolloutPort, type RolloutSampling, type TracePort } from './ports.ts';
import { openRewardStage, scoreRollouts, type RewardStage } from './reward-stage.ts';
import type { RewardFlow } from './reward-stream.ts';
import { signalsOf, withoutContextPass, type SignalsContext } from './story-signals.ts';

/** Everything one step needs (built once per job). */
export interface StepContext {
  policy: PolicyPort;
  rollout: RolloutPort;
  rewards: RewardClient;
  /** Rewards while the rollouts run, and shared scorings; absent: the whole batch after generation, nothing shared. */
  rewardFlow?: RewardFlow;
  algorithm: AlgoConfig;
  kl?: KlController;
  sampling: RolloutSampling;
  /** The actor loss settings sent with every update (protocol ActorLossSchema, mini-batch in trajectories). */
  loss: Record<string, unknown> & { ppo_mini_batch_size: number };
  needRef: boolean;
  /** reward.token_rewards_key: dense per-token rewards in the reward's extra. */
  tokenRewardsKey: string | null;
  /** Padded widths of every log-prob and update batch (one compiled shape per job). */
  widths: PadWidths;
  /** The critic (critic.enable, or GAE): its update settings and verl's trainer.critic_warmup. */
  critic?: { loss: Record<string, unknown>; warmup: number };
  /** The learning rate of each model's update at a training step (1-based); absent: the loss settings' `lr`. */
  lr?: { actor(step: number): number; critic?(step: number): number };
  /** Story signals (reward.signals) for the rows that get them. */
  signals?: SignalsContext;
  /** trainer.rollout_data_dir: the dump of every step's rollouts. */
  rolloutDump?: { sink: GenerationDump; decode(ids: readonly number[]): string };
  /** Spans of the step's stages; none when absent. */
  trace?: TracePort;
  signal: AbortSignal;
}

/** What a step produced. */
export interface StepOutcome {
  metrics: MetricsRecord;
  /** Weights version after the update (already published). */
  version: string;
}

/** The step's stage timer: adds the seconds `f` takes to `timing[stage]`, inside a span named `stage` (unless `spanned`: one is open already). */
type Timed = <T>(timing: Record<string, number>, stage: string, f: () => Promise<T>, spanned?: boolean) => Promise<T>;

function stageTimer(trace: TracePort = NO_TRACE): Timed {
  return (timing, stage, f, spanned = false) => {
    const run = async () => {
      const t = performance.now();
      try {
        return await f();
      } finally {
        timing[stage] = (timing[stage] ?? 0) + (performance.now() - t) / 1000;
      }
    };
    return spanned ? run() : trace.span(stage, run);
  };
}

/** Runs one step on `rows` with the current weights `version`. */
export async function runStep(ctx: StepContext, step: number, epoch: number, rows: readonly DatasetRow[], version: string): Promise<StepOutcome> {
  const rewardStage = openRewardStage({
    rewards: ctx.rewards,
    ...(ctx.rewardFlow && { flow: ctx.rewardFlow }),
    rows,
    step,
    ...(ctx.signals && { needsSignals: ctx.signals.needs }),
    trace: ctx.trace ?? NO_TRACE,
    signal: ctx.signal,
  });
  try {
    return await runStages(ctx, step, epoch, rows, version, rewardStage);
  } finally {
    await rewardStage.close();
  }
}

async function runStages(
  ctx: StepContext,
  step: number,
  epoch: number,
  rows: readonly DatasetRow[],
  version: string,
  rewardStage: RewardStage,
): Promise<StepOutcome> {
  const timing: Record<string, number> = {};
  const timed = stageTimer(ctx.trace);
  const started = performance.now();
  const results = await timed(timing, 'gen', () =>
    ctx.rollout.rollout(rows, { ...ctx.sampling, seed: ctx.sampling.seed + step }, version, ctx.signal, rewardStage.onResult),
  );
  // ReMax (verl RayPPOTrainer.fit): one greedy response per prompt; its score is the baseline of that prompt's samples.
  const baselines = ctx.algorithm.adv_estimator === 'remax' ? await timed(timing, 'gen_max', () => greedyBaselines(ctx, rows, step, version)) : undefined;
  const ok = results.filter((r) => r.error === undefined);
  const failedRollouts = results.length - ok.length;
  if (ok.length === 0) {
    // Not retryable, as before: the generation side answered, with nothing usable.
    throw new AppError(ErrorCode.UpstreamError, `step ${step}: every rollout failed (${results.find((r) => r.error)?.error?.message ?? 'no results'})`);
  }
  const pairs = ok.map((r) => ({ prompt: r.promptIds, response: r.responseIds }));
  // The old log-prob pass comes before the reward: story rewards take their signals from it
  // (with and without the context r, entropies), computed in the same worker request.
  const without = ctx.signals === undefined ? undefined : withoutContextPass(ctx.signals, rows, ok);
  const old = await timed(timing, 'old_log_prob', () => ctx.policy.logprobs('actor', pairs, without !== undefined, ctx.widths, without));
  const signals = without === undefined ? undefined : signalsOf(ok, without, old);
  const scored = await timed(timing, 'reward', () => rewardStage.finish(results, signals), rewardStage.spanned);
  if (ctx.rolloutDump !== undefined) {
    const { sink, decode } = ctx.rolloutDump;
    await sink.write(
      step,
      scored.map((s) => dumpEntry(decode(s.rollout.promptIds), s.rollout.text, rows[s.rollout.row]!.ground_truth, s.result.score ?? 0, step, s.result.extra)),
    );
  }
  const ref = ctx.needRef ? await timed(timing, 'ref', () => ctx.policy.logprobs('ref', pairs, false, ctx.widths)) : undefined;
  const values = ctx.critic ? await timed(timing, 'values', () => ctx.policy.values(pairs, ctx.widths)) : undefined;
  const trajs: ScoredTrajectory[] = scored.map((s, i) => ({
    uid: s.rollout.uid,
    responseIds: s.rollout.responseIds,
    responseMask: s.rollout.responseMask,
    score: s.result.score ?? 0,
    ...denseRewards(s.result.extra, ctx.tokenRewardsKey),
    oldLogprobs: old.logprobs[i]!,
    ...(baselines && { rewardBaseline: baselines[s.rollout.row]! }),
    ...(values && { values: values[i]! }),
    ...(ref && { refLogprobs: ref.logprobs[i]! }),
  }));
  const x = await timed(timing, 'adv', async () => buildExperience(trajs, ctx.algorithm, ctx.kl));
  // The tokens of trajectory b as every update body carries them.
  const tokensOf = (t: ScoredTrajectory, b: number) => ({
    prompt: pairs[b]!.prompt,
    response: pairs[b]!.response,
    response_mask: t.responseMask.map((m) => (m > 0 ? 1 : 0)),
  });
  const criticMetrics =
    ctx.critic === undefined
      ? {}
      : await timed(timing, 'update_critic', () =>
          ctx.policy.updateCritic({
            step,
            loss: ctx.lr?.critic === undefined ? ctx.critic!.loss : { ...ctx.critic!.loss, lr: ctx.lr.critic(step) },
            prompt_width: ctx.widths.promptWidth,
            response_width: ctx.widths.responseWidth,
            batch: trajs.map((t, b) => ({
              ...tokensOf(t, b),
              values: row(x.values!, x.shape, b, t.responseIds.length),
              returns: row(x.returns, x.shape, b, t.responseIds.length),
            })),
          }),
        );
  // verl: the actor trains once trainer.critic_warmup <= global step.
  const trainActor = ctx.critic === undefined || ctx.critic.warmup <= step;
  const update = !trainActor
    ? { metrics: {} }
    : await timed(timing, 'update_actor', () =>
        ctx.policy.update({
          step,
          seed: step,
          loss: ctx.lr === undefined ? ctx.loss : { ...ctx.loss, lr: ctx.lr.actor(step) },
          prompt_width: ctx.widths.promptWidth,
          response_width: ctx.widths.responseWidth,
          batch: trajs.map((t, b) => ({
            ...tokensOf(t, b),
            advantages: row(x.advantages, x.shape, b, t.responseIds.length),
            old_logprobs: t.oldLogprobs,
            ...(t.refLogprobs && { ref_logprobs: t.refLogprobs }),
          })),
        }),
      );
  const newVersion = await timed(timing, 'publish', () => ctx.policy.export(true));
  timing.step = (performance.now() - started) / 1000;
  // Model time as the generating and training processes measured it; what remains of the
  // step besides remote scoring is the controller's and the bus's overhead.
  const modelS = ctx.rollout.takeComputeSeconds() + ctx.policy.takeComputeSeconds();
  const overheadS = Math.max(0, timing.step - modelS - (timing.reward ?? 0));
  const sequenceRewards = rowSums(x.tokenLevelRewards, x.shape);
  const samples: ScoredSample[] = scored.map((s, i) => ({
    data_source: rows[s.rollout.row]!.data_source,
    score: s.result.score,
    reward: sequenceRewards[i]!,
    extra: s.result.extra,
  }));
  const modelTokens = trajs.reduce((n, t) => n + t.responseMask.reduce((a, m) => a + m, 0), 0);
  const metrics = buildStepMetrics({
    step,
    epoch,
    samples,
    lengths: {
      responseLengths: trajs.map((t) => t.responseIds.length),
      promptLengths: pairs.map((p) => p.prompt.length),
      maxResponseLength: ctx.sampling.maxTokens,
    },
    timingS: timing,
    scalars: {
      ...update.metrics,
      ...criticMetrics,
      ...x.metrics,
      ...(x.values !== null && {
        ...computeTokenStats('values', x.values, x.responseMask),
        ...computeTokenStats('returns', x.returns, x.responseMask),
        ...computeExplainedVariance(x.returns, x.values, x.responseMask),
      }),
      'critic/advantages/mean': maskedMean(x.advantages, x.responseMask),
      'rollout/failed': failedRollouts,
      'reward/errors': scored.filter((s) => s.result.error !== null).length,
      'reward/cache_hits': rewardStage.stats.hits,
      'reward/cache_hit_rate': rewardStage.stats.items === 0 ? 0 : rewardStage.stats.hits / rewardStage.stats.items,
      'perf/model_tokens': modelTokens,
      ...(old.withoutContextComputeS !== undefined && { 'perf/signals_compute_s': old.withoutContextComputeS }),
      'perf/model_compute_s': modelS,
      'perf/overhead_s': overheadS,
      'perf/overhead_share': overheadS / timing.step,
    },
  });
  return { metrics, version: newVersion };
}

/** The score of each row's greedy response (0 where the rollout or its reward failed, as verl's reward fn would give). */
async function greedyBaselines(ctx: StepContext, rows: readonly DatasetRow[], step: number, version: string): Promise<number[]> {
  const greedy = await ctx.rollout.rollout(rows, { ...ctx.sampling, temperature: 0, n: 1, seed: ctx.sampling.seed + step }, version, ctx.signal);
  const out = rows.map(() => 0);
  for (const { rollout, result } of await scoreRollouts(ctx.rewards, rows, greedy, ctx.signal)) out[rollout.row] = result.score ?? 0;
  return out;
}

function denseRewards(extra: Record<string, unknown> | undefined, key: string | null): { tokenRewards?: number[] } {
  const v = key === null ? undefined : extra?.[key];
  return Array.isArray(v) && v.every((x) => typeof x === 'number') ? { tokenRewards: v as number[] } : {};
}
