// `node infra/scripts/secrets.ts <file>`: fresh secrets for a deployment, as
// KEY=VALUE lines in <file> (mode 0600; an existing file is left as it is):
// the NATS users' passwords (NATS_PASSWORD_<USER>, read by infra/nats/auth.conf
// and handed to each service as NATS_PASS) and the services' AUTH_TOKEN.
//   compose:    docker compose --env-file <file> -f infra/compose.yaml up --build
//   Kubernetes: kubectl create secret generic rl-secrets --from-env-file=<file>
// (`make up` needs none of this: it generates its own under .run/secrets.json.)
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { generatePasswords, natsServerEnv } from './nats-users.ts';

const file = process.argv[2];
if (file === undefined) {
  console.error('usage: node infra/scripts/secrets.ts <file>   (KEY=VALUE lines, mode 0600)');
  process.exit(2);
}
if (existsSync(file)) {
  console.log(`${file} exists; left as it is`);
} else {
  const values = { ...natsServerEnv(generatePasswords()), AUTH_TOKEN: randomBytes(32).toString('base64url') };
  writeFileSync(
    file,
    `${Object.entries(values)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n')}\n`,
    { mode: 0o600, flag: 'wx' },
  );
  console.log(`wrote ${file} (mode 0600): ${Object.keys(values).join(', ')}`);
}
