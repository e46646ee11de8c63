import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Connects a test client to a test nats-server. */
export function connectTestClient(url: string): Promise<NatsConnection> {
  return connect({ servers: url, name: 'integration-test', timeout: 5000 });
}
