// A NATS cluster on loopback for integration tests: nats-servers routed to
// each other with clustered JetStream (each with its own store directory),
// each running infra/nats/cluster.conf with loopback ports and routes. A node can be
// SIGKILLed and started again on the same ports and store, so it rejoins as the
// same server. Readiness is read from the servers' log and monitoring port.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, launch, waitForLine, type Running } from './processes.ts';

/** How long a node may take to accept clients and see the cluster's JetStream leader. */
const START_TIMEOUT_MS = 30_000;

/** One node of the cluster. */
export interface ClusterNode {
  /** server_name: n0, n1, ... */
  readonly name: string;
  /** Its client URL alone. */
  readonly url: string;
  /** Its monitoring endpoint (/varz, /routez, /healthz). */
  readonly monitorUrl: string;
  /** SIGKILLs the node (no goodbye to clients or routes); its store stays. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and store; resolves once it is back in the cluster and knows the JetStream leader. */
  start(): Promise<void>;
}

/** A running cluster. */
export interface NatsCluster {
  readonly nodes: readonly ClusterNode[];
  /** NATS_URL for a client whose nearest node is `home`: every node, `home` first. */
  urlFor(home: number): string;
  /** The name of the JetStream metadata leader when the cluster came up. */
  readonly metaLeader: string;
  /** Kills every node and removes the directory. */
  stop(): Promise<void>;
}

/** Options of {@link startNatsCluster}. */
export interface NatsClusterOptions {
  /** Nodes. @default 3 */
  size?: number;
  /** Lines added to every node's config, after (so over) cluster.conf's (e.g. `ping_interval: "1s"`). */
  extra?: string[];
}

const CLUSTER_BLOCK = /^cluster \{[\s\S]*?^\}/m;

/**
 * infra/nats/cluster.conf with infra's nats.conf inlined (nats-server resolves
 * `include` relative to the including file) minus its fixed ports, so the tests
 * run the documented node config; the cluster block is replaced per node.
 */
function clusterTemplate(): string {
  const base = readFileSync(join(ROOT, 'infra/nats/nats.conf'), 'utf8').replace(/^\s*(port|http_port)\s*:.*$/gm, '');
  const conf = readFileSync(join(ROOT, 'infra/nats/cluster.conf'), 'utf8');
  if (!/^include \.\/nats\.conf$/m.test(conf) || !CLUSTER_BLOCK.test(conf) || !conf.includes('$NATS_SERVER_NAME')) {
    throw new Error('infra/nats/cluster.conf: expected `include ./nats.conf`, `server_name: $NATS_SERVER_NAME` and a `cluster { ... }` block');
  }
  return conf.replace(/^include \.\/nats\.conf$/m, () => base);
}

/**
 * Re-checks `ready` until it holds, or throws after `timeoutMs`: for state
 * that other processes reach in their own time (a raft election, a route).
 */
export async function waitFor(ready: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await ready().catch(() => false)) return;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The JetStream metadata leader a node knows of (its /jsz), if any. */
async function metaLeaderOf(monitorUrl: string): Promise<string | undefined> {
  const jsz = (await (await fetch(`${monitorUrl}/jsz`, { signal: AbortSignal.timeout(5_000) })).json()) as { meta_cluster?: { leader?: string } };
  return jsz.meta_cluster?.leader || undefined;
}

/** A free loopback port (the OS's pick; closed again before the server binds it). */
function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

/** Starts `size` nats-servers routed into one cluster with JetStream; resolves once each knows the metadata leader. */
export async function startNatsCluster(options: NatsClusterOptions = {}): Promise<NatsCluster> {
  const size = options.size ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'rl-nats-cluster-'));
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort(), http: await freePort() })));
  const routes = ports.map((p) => `"nats-route://127.0.0.1:${p.route}"`).join(', ');
  const template = clusterTemplate();
  const procs: Array<Running | undefined> = new Array(size);

  const nodes = ports.map((p, i): ClusterNode => {
    const name = `n${i}`;
    const home = join(dir, name);
    mkdirSync(home);
    const conf = join(home, 'nats.conf');
    const monitorUrl = `http://127.0.0.1:${p.http}`;
    const cluster = `cluster { name: rl-test, host: 127.0.0.1, port: ${p.route}, routes: [${routes}] }`;
    const lines = [
      template.replace('$NATS_SERVER_NAME', name).replace(CLUSTER_BLOCK, cluster),
      `port: ${p.client}`,
      `http_port: ${p.http}`,
      ...(options.extra ?? []),
    ];
    writeFileSync(conf, `${lines.join('\n')}\n`);
    const start = async () => {
      const r = launch('nats-server', ['-c', conf, '-js', '--store_dir', join(home, 'js')], { cwd: home });
      procs[i] = r;
      await waitForLine(r, /Server is ready/, START_TIMEOUT_MS);
      // A node serves JetStream requests once it knows the metadata leader (not every follower logs it).
      await waitFor(async () => (await metaLeaderOf(monitorUrl)) !== undefined, START_TIMEOUT_MS, `${name} to know the JetStream leader`);
    };
    return {
      name,
      url: `nats://127.0.0.1:${p.client}`,
      monitorUrl,
      kill: async () => {
        await procs[i]?.stop();
      },
      start,
    };
  });

  try {
    await Promise.all(nodes.map((n) => n.start()));
  } catch (err) {
    await Promise.all(procs.map((r) => r?.stop()));
    rmSync(dir, { recursive: true, force: true });
    // Every node's last lines: a node that never sees a leader says little about why on its own.
    const tails = procs.map((r, i) => `--- n${i}\n${(r?.output ?? []).slice(-15).join('\n')}`).join('\n');
    throw new Error(`the cluster did not come up: ${(err as Error).message.split('\n')[0]}\n${tails}`, { cause: err });
  }
  const metaLeader = (await metaLeaderOf(nodes[0]!.monitorUrl))!;
  return {
    nodes,
    metaLeader,
    urlFor: (home) => [nodes[home]!, ...nodes.filter((_, i) => i !== home)].map((n) => n.url).join(','),
    stop: async () => {
      await Promise.all(procs.map((r) => r?.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
