import { STORY_COMPONENTS } from '@rl/service-kit';
import { MetricKey, TIMING_PREFIX } from '../metrics/metric-keys.ts';

/** One chart: which metric keys it draws and how. */
export interface ChartDef {
  /** File name without extension. */
  name: string;
  title: string;
  yTitle: string;
  /** The metric keys drawn as series, chosen from every key present in the log. */
  series: (keys: readonly string[]) => string[];
  /** A shaded mean ± std band: [mean key, std key]. */
  band?: readonly [string, string];
  /** Stack the series as areas (time per stage), first series at the bottom. */
  stacked?: boolean;
  /** Start the y axis at 0 (accuracies) instead of fitting the data. @default false */
  zero?: boolean;
}

const present = (wanted: readonly string[]) => (keys: readonly string[]) => wanted.filter((k) => keys.includes(k));

// Stages in pipeline order; any other timer follows, and the total (`step`) is not stacked.
const STAGE_ORDER = [
  'gen',
  'gen_max',
  'reward',
  'old_log_prob',
  'ref',
  'values',
  'adv',
  'update_critic',
  'update_actor',
  'weights_sync',
  'testing',
  'save_checkpoint',
];
const NOT_STACKED = new Set([`${TIMING_PREFIX}step`]);

function timingKeys(keys: readonly string[]): string[] {
  const timers = keys.filter((k) => k.startsWith(TIMING_PREFIX) && !NOT_STACKED.has(k));
  const rank = (k: string) => {
    const i = STAGE_ORDER.indexOf(k.slice(TIMING_PREFIX.length));
    return i < 0 ? STAGE_ORDER.length : i;
  };
  return timers.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

// reward-story's components (the kit's shared contract): each in [0, 1], reported per data source as reward/<ds>/<component>/mean.
const STORY_COMPONENT_KEY = new RegExp(`^reward/.+/(${STORY_COMPONENTS.join('|')})/mean$`);

/** The main curves of a run, in the order the index page shows them. */
export const CHARTS: readonly ChartDef[] = [
  {
    name: 'reward',
    title: 'Training reward (mean ± std)',
    yTitle: 'score',
    series: present([MetricKey.ScoreMean]),
    band: [MetricKey.ScoreMean, MetricKey.ScoreStd],
  },
  {
    name: 'story-components',
    title: 'Story reward components (training mean)',
    yTitle: 'component score',
    zero: true,
    series: (keys) => keys.filter((k) => STORY_COMPONENT_KEY.test(k)).sort(),
  },
  {
    name: 'val-accuracy',
    title: 'Validation (val-core)',
    yTitle: 'accuracy / reward',
    zero: true,
    series: (keys) => keys.filter((k) => k.startsWith('val-core/')).sort(),
  },
  {
    name: 'response-length',
    title: 'Response length',
    yTitle: 'tokens',
    series: present([MetricKey.ResponseLengthMean, MetricKey.ResponseLengthMax, MetricKey.ResponseLengthMin]),
  },
  { name: 'kl', title: 'KL', yTitle: 'KL', series: present([MetricKey.PpoKl, MetricKey.KlLoss, MetricKey.RewardKlPenalty]) },
  { name: 'entropy', title: 'Policy entropy', yTitle: 'nats / token', series: present([MetricKey.Entropy]) },
  { name: 'pg-loss', title: 'Policy loss', yTitle: 'loss', series: present([MetricKey.PgLoss, MetricKey.VfLoss]) },
  {
    name: 'grad-norm',
    title: 'Gradient norm (before clipping)',
    yTitle: 'L2 norm',
    series: present([MetricKey.GradNorm, MetricKey.CriticGradNorm, MetricKey.SftGradNorm]),
  },
  { name: 'sft-loss', title: 'SFT loss (token-mean NLL)', yTitle: 'nats / token', series: present([MetricKey.SftLoss, MetricKey.SftValLoss]) },
  { name: 'lr', title: 'Learning rate', yTitle: 'lr', series: present([MetricKey.SftLr]) },
  { name: 'timing', title: 'Time per stage', yTitle: 'seconds', series: timingKeys, stacked: true },
];
