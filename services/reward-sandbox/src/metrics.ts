// The service's own Prometheus gauges (the kit's registry has the HTTP and NATS
// metrics): the admission queue and the CPU-following admission limit, read at
// scrape time.

import type { AdmissionQueue } from '@rl/service-kit';
import { Gauge, type Registry } from 'prom-client';
import type { CpuAdmission } from './core/cpu-admission.ts';

/** Registers the queue and admission gauges. */
export function addSandboxGauges(registry: Registry, queue: AdmissionQueue, admission: CpuAdmission): void {
  for (const [name, help, read] of [
    ['sandbox_running', 'Programs executing now', () => queue.running],
    ['sandbox_queued', 'Programs waiting for a slot', () => queue.queued],
    ['sandbox_admission_limit', 'Programs allowed to run at once now (follows their CPU use between the floor and the slot count)', () => admission.current],
    [
      'sandbox_cpu_demand_cores',
      'CPU the service and its sandboxes used or waited for over the last admission reading, in cores',
      () => admission.demandCores ?? 0,
    ],
  ] as const) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  }
}
