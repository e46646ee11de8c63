// Runs the story-scenario evaluation set through the real reward-story service
// (started here, HTTP only, with the model directory given) and prints how often
// the reward orders the good reply above each kind of bad reply, per language.
//   node services/reward-story/scripts/eval-story.ts [--model-dir DIR] [--scenarios FILE]... [--split dev|test] [--failures] [--json]
// Exit codes: 0 done, 1 the service failed, 2 bad arguments or a broken scenario file.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_MODEL_DIR } from '../src/config.ts';
import { DEFAULT_SCENARIO_FILES, InvalidScenarioFile, loadScenarios } from '../eval/load-scenarios.ts';
import { buildDiscriminationBatch, computeDiscrimination, formatDiscrimination } from '../eval/discrimination.ts';
import { buildEvalBatch } from '../eval/orderings.ts';
import { computeReport, formatReport } from '../eval/pass-rates.ts';
import { ScenarioSplit } from '../eval/scenario.ts';
import { scoreOverHttp } from '../eval/score-over-http.ts';
import { startStoryService } from '../eval/service-process.ts';

const USAGE = 'usage: eval-story.ts [--model-dir DIR] [--scenarios FILE]... [--split dev|test] [--failures] [--json]';

function fail(code: number, message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        'model-dir': { type: 'string', default: DEFAULT_MODEL_DIR },
        scenarios: { type: 'string', multiple: true },
        split: { type: 'string' },
        failures: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (err) {
    return fail(2, `${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  }
}
const args = parseCommandLine();
if (args.help) fail(0, USAGE);
const split = args.split === undefined ? undefined : ScenarioSplit.safeParse(args.split).data;
if (args.split !== undefined && split === undefined) fail(2, `--split must be dev or test\n${USAGE}`);

const files = (args.scenarios ?? DEFAULT_SCENARIO_FILES).map((f) => resolve(f));
const scenarios = await loadScenarios(files, split).catch((err: unknown) => {
  if (err instanceof InvalidScenarioFile) fail(2, `invalid scenario file ${err.message}`);
  throw err;
});
if (scenarios.length === 0) fail(2, 'no scenarios to run');
const { items, checks } = buildEvalBatch(scenarios);
const discrimination = buildDiscriminationBatch(scenarios);

const service = await startStoryService({ modelDir: resolve(args['model-dir']) }).catch((err: unknown) => fail(1, String(err)));
let scores: number[];
let discriminationScores: number[];
try {
  scores = await scoreOverHttp(service.baseUrl, items);
  discriminationScores = await scoreOverHttp(service.baseUrl, discrimination.items);
} catch (err) {
  await service.stop();
  fail(1, `scoring failed: ${err instanceof Error ? err.message : String(err)}`);
}
await service.stop();

const reports = [
  { title: 'all scenarios', report: computeReport(checks, scores) },
  ...(split === undefined
    ? (['dev', 'test'] as const).map((s) => ({
        title: `${s} split`,
        report: computeReport(
          checks.filter((c) => c.split === s),
          scores,
        ),
      }))
    : []),
];
const contextDiscrimination = computeDiscrimination(discrimination.rows, discriminationScores);
if (args.json) {
  const out = {
    model: service.modelId,
    modelDir: resolve(args['model-dir']),
    scenarios: scenarios.length,
    checks: checks.length,
    reports,
    contextDiscrimination,
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} else {
  process.stdout.write(
    `model ${service.modelId} (${resolve(args['model-dir'])}): ${scenarios.length} scenarios, ${checks.length} checks; a check passes when the good reply scores strictly higher\n\n`,
  );
  for (const { title, report } of reports) process.stdout.write(`${formatReport(title, report)}\n\n`);
  process.stdout.write(`${formatDiscrimination(contextDiscrimination)}\n\n`);
  if (args.failures) {
    for (const f of reports[0]!.report.failures) {
      process.stdout.write(`FAIL ${f.scenarioId} good ${f.goodScore.toFixed(4)} <= ${f.ordering} ${f.badScore.toFixed(4)}\n`);
    }
  }
}
