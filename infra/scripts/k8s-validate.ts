// `make validate-manifests`: every object in infra/k8s/*.yaml against the Kubernetes
// API schemas (the npm package kubernetes-models: validators compiled from the
// Kubernetes OpenAPI document, one per apiVersion/kind) and KEDA's CRD schemas
// (@kubernetes-models/keda). The validator is fetched from the npm registry on
// first use into .tools/k8s-schemas, pinned, outside the workspaces' lock
// file; after that it runs offline. Like kubeconform without -strict, a field
// the schema does not name is not reported: types, enums, formats and
// required fields are. Before the manifests, a broken Deployment must be
// refused, so a validator that accepts everything fails the run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');
const TOOL_DIR = join(ROOT, '.tools/k8s-schemas');
const PACKAGES = ['kubernetes-models@5.1.0', '@kubernetes-models/keda@2.0.0', 'yaml@2.9.1'];
const MANIFESTS = join(ROOT, 'infra/k8s');

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;
interface Manifest {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown };
}

function installValidator(): void {
  const stamp = join(TOOL_DIR, 'installed.txt');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === PACKAGES.join('\n')) return;
  mkdirSync(TOOL_DIR, { recursive: true });
  writeFileSync(join(TOOL_DIR, 'package.json'), '{ "private": true }\n');
  console.log(`fetching ${PACKAGES.join(', ')} into ${TOOL_DIR}`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...PACKAGES], {
    cwd: TOOL_DIR,
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 300_000,
  });
  writeFileSync(stamp, PACKAGES.join('\n'));
}

const toolImport = (specifier: string): Promise<Record<string, unknown>> =>
  import(pathToFileURL(join(TOOL_DIR, 'node_modules', specifier)).href) as Promise<Record<string, unknown>>;

/** The model class for an apiVersion/kind: core `v1/Service`, `apps/v1/Deployment`, KEDA's `keda.sh/v1alpha1/ScaledObject`. */
async function modelFor(apiVersion: string, kind: string): Promise<ModelClass> {
  const path = `${apiVersion}/${kind}.js`;
  const pkg = apiVersion.endsWith('keda.sh/v1alpha1') ? '@kubernetes-models/keda' : 'kubernetes-models';
  const module = await toolImport(`${pkg}/${path}`).catch(() => {
    throw new Error(`no schema for apiVersion ${apiVersion} kind ${kind} in ${pkg}`);
  });
  const model = module[kind];
  if (typeof model !== 'function') throw new Error(`${pkg}/${path} exports no ${kind}`);
  return model as ModelClass;
}

async function check(doc: Manifest): Promise<string | null> {
  if (typeof doc.apiVersion !== 'string' || typeof doc.kind !== 'string') return 'apiVersion and kind must be strings';
  try {
    new (await modelFor(doc.apiVersion, doc.kind))(doc).validate();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

installValidator();
const { parseAllDocuments } = (await toolImport('yaml/dist/index.js')) as {
  parseAllDocuments: (src: string) => Array<{ errors: Array<{ message: string }>; toJS(): unknown }>;
};

const broken = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'broken' }, spec: { replicas: 'two', template: {} } };
if ((await check(broken)) === null) throw new Error('the validator accepted a Deployment with replicas "two" and no selector');

let objects = 0;
const failures: string[] = [];
for (const file of readdirSync(MANIFESTS).filter((f) => f.endsWith('.yaml'))) {
  const docs = parseAllDocuments(readFileSync(join(MANIFESTS, file), 'utf8'));
  for (const [i, doc] of docs.entries()) {
    const where = `infra/k8s/${file} document ${i + 1}`;
    if (doc.errors.length > 0) {
      failures.push(`${where}: YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
      continue;
    }
    const object = doc.toJS() as Manifest | null;
    if (object === null) continue;
    objects++;
    const problem = await check(object);
    const name = `${String(object.kind)} ${String(object.metadata?.name)}`;
    if (problem !== null) failures.push(`${where} (${name}): ${problem}`);
    else console.log(`ok  ${where}: ${name} (${String(object.apiVersion)})`);
  }
}
for (const f of failures) console.error(`BAD ${f}`);
console.log(`${objects} objects, ${failures.length} invalid`);
if (failures.length > 0 || objects === 0) process.exit(1);
