import { describe, expect, it } from 'vitest';
import { startTelemetry } from './start.ts';

describe('startTelemetry', () => {
  it('stays off without OTEL_* exporter settings', async () => {
    const t = await startTelemetry('test', {});
    expect(t.enabled).toBe(false);
    await t.shutdown();
  });

  it('stays off when an exporter is named but the SDK is disabled', async () => {
    expect((await startTelemetry('test', { OTEL_TRACES_EXPORTER: 'console', OTEL_SDK_DISABLED: 'true' })).enabled).toBe(false);
  });

  it('starts the Node SDK when an exporter is named', async () => {
    const t = await startTelemetry('test', { OTEL_TRACES_EXPORTER: 'console' });
    expect(t.enabled).toBe(true);
    await t.shutdown();
  });
});
