/** Handle returned by {@link startTelemetry}. */
export interface Telemetry {
  readonly enabled: boolean;
  shutdown(): Promise<void>;
}

const OTEL_SWITCHES = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_EXPORTER'];

/**
 * Starts the OpenTelemetry Node SDK when the standard `OTEL_*` variables ask for
 * an exporter; otherwise does nothing, so the default stack has no telemetry cost.
 * `OTEL_SDK_DISABLED=true` always wins.
 */
export async function startTelemetry(serviceName: string, env: Record<string, string | undefined>): Promise<Telemetry> {
  const wanted = OTEL_SWITCHES.some((k) => (env[k] ?? '') !== '' && env[k] !== 'none');
  if (!wanted || env.OTEL_SDK_DISABLED === 'true') return { enabled: false, shutdown: async () => {} };
  // Loaded lazily: the SDK and its exporters cost ~100 ms of start-up we skip when off.
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({ serviceName });
  sdk.start();
  return { enabled: true, shutdown: () => sdk.shutdown() };
}
