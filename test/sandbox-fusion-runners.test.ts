// SandboxFusion's own runner tests (sandbox/tests/runners/test_*.py, from a
// mirror at test time), run unchanged by pytest against a real reward-sandbox.
// Every test of every language whose toolchain this machine has must pass,
// except the one that needs the internet (the sandbox has no network, on
// purpose), which must fail. Languages without a toolchain skip, naming the
// command /v1/languages gives for them (make sandbox-toolchains adds them all).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';
import { type RunnerOutcome, runRunnerTests, runnerTestFiles, sandboxFusionUnavailable } from './support/sandbox-fusion.ts';

const unavailable = sandboxFusionUnavailable();
const files = unavailable === null ? runnerTestFiles() : [];
const NEEDS_INTERNET = new Set(['test_isolation.py::test_isolation_network_external_access']);
// Every runner test at once, scala and kotlin's compilers included, on a loaded 2-core machine.
const RUN_ALL_MS = 20 * 60_000;

interface LanguagesResponse {
  languages: Array<{ language: string }>;
  missing: Array<{ language: string; reason: string; install: string | null }>;
}

describe.skipIf(unavailable !== null)(`SandboxFusion's runner tests against /run_code${unavailable === null ? '' : ` (${unavailable})`}`, () => {
  let nats: NatsServer;
  let sandbox: ServiceProcess;
  let languages: LanguagesResponse;
  let outcomes: Record<string, RunnerOutcome>;

  beforeAll(async () => {
    nats = await startNatsServer();
    sandbox = await startService('reward-sandbox', { NATS_URL: nats.url });
    languages = (await (await fetch(`${sandbox.baseUrl}/v1/languages`, { signal: AbortSignal.timeout(10_000) })).json()) as LanguagesResponse;
    const installed = new Set(languages.languages.map((l) => l.language));
    outcomes = await runRunnerTests(
      sandbox.baseUrl,
      files.filter((f) => installed.has(f.language)).map((f) => f.file),
      RUN_ALL_MS,
    );
  }, RUN_ALL_MS + 60_000);
  afterAll(async () => {
    await sandbox?.stop();
    await nats?.stop();
  });

  for (const { file, language } of files) {
    it(`${language} (${file})`, (ctx) => {
      const missing = languages.missing.find((m) => m.language === language);
      if (missing !== undefined) ctx.skip(`${language}: ${missing.reason}; ${missing.install ?? 'no package provides it'}`);
      const mine = Object.entries(outcomes).filter(([id]) => id.startsWith(`${file}::`));
      expect(mine.length).toBeGreaterThan(0);
      const wrong = mine
        .filter(([id, r]) => (r.outcome === 'passed') === NEEDS_INTERNET.has(id))
        .map(([id, r]) => `${id}: ${r.outcome}${r.message === '' ? '' : `\n${r.message}`}`);
      expect(wrong).toEqual([]);
    });
  }
});
