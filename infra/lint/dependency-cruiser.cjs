// Dependency rules of the layout in the README (and shared/DESIGN.md): pure cores,
// services that never import each other, packages used only through their entry points.
// `make lint` runs it; a violation fails CI.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment: 'A service core does no I/O and knows no transport: no adapters, no hono, no NATS, no fs or child processes. Adapters implement the ports core declares.',
      severity: 'error',
      from: { path: '^services/[^/]+/src/core/', pathNot: '[.]test(-support)?[.]ts$|/testing/' },
      to: {
        path: [
          '^services/[^/]+/src/adapters/',
          '^(node:)?(fs|fs/promises|child_process)$',
          'node_modules/(hono|@hono/[^/]+|@nats-io/[^/]+)/',
        ],
      },
    },
    {
      name: 'core-reaches-no-transport',
      comment: 'Not even through a shared package: a core that loads hono or NATS transitively is not pure (cores take the kit from @rl/service-kit/core).',
      severity: 'error',
      from: { path: '^services/[^/]+/src/core/', pathNot: '[.]test(-support)?[.]ts$|/testing/' },
      to: { path: 'node_modules/(hono|@hono/[^/]+|@nats-io/[^/]+)/', reachable: true },
    },
    {
      name: 'core-reaches-no-io',
      comment:
        'Not through a barrel or any other module either: a core that loads a module which loads fs, child processes or sockets (a data/ or metrics/ index re-exporting a file reader) does I/O in fact. Import the pure module itself, or move what core needs into core.',
      severity: 'error',
      from: { path: '^services/[^/]+/src/core/', pathNot: '[.]test(-support)?[.]ts$|/testing/' },
      to: { path: '^(node:)?(fs|fs/promises|child_process|net|http|https|http2|dgram|worker_threads)$', reachable: true },
    },
    {
      name: 'core-tests-are-pure-too',
      comment: 'A core unit test, and a helper only tests import (testing/), needs no network and no transport library either (reading a fixture file is allowed).',
      severity: 'error',
      from: { path: ['^services/[^/]+/src/core/.*[.]test(-support)?[.]ts$', '^services/[^/]+/src/core/testing/', '^services/[^/]+/src/core/.*/testing/'] },
      to: { path: ['^services/[^/]+/src/adapters/', '^(node:)?child_process$', 'node_modules/(hono|@hono/[^/]+|@nats-io/[^/]+)/'] },
    },
    {
      name: 'runtime-loads-no-tools',
      comment:
        "A service's runtime (src/) never loads its build tools, evaluation harness or commands (tools/, eval/, scripts/), which may use dev-only packages and change without it. Tests and their testing/ helpers may.",
      severity: 'error',
      from: { path: '^services/([^/]+)/src/', pathNot: ['[.]test[.]ts$', '/testing/'] },
      to: { path: '^services/$1/(tools|eval|scripts)/' },
    },
    {
      name: 'no-service-imports-another',
      comment: "A service's contract is its OpenAPI document and its subjects; shared contracts live in @rl/service-kit.",
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'packages-through-entry-points',
      comment: 'Reach a shared package by its name (@rl/service-kit, @rl/policy, ...), whose exports map is its public surface, never by a relative path into its folder.',
      severity: 'error',
      from: { pathNot: '^shared/' },
      to: { path: '^shared/[^/]+/', dependencyTypes: ['local'], dependencyTypesNot: ['aliased'] },
    },
    {
      name: 'packages-do-not-reach-into-each-other',
      comment: 'Between shared packages too: by name only.',
      severity: 'error',
      from: { path: '^shared/([^/]+)/' },
      to: { path: '^shared/[^/]+/', pathNot: '^shared/$1/', dependencyTypes: ['local'], dependencyTypesNot: ['aliased'] },
    },
    {
      name: 'protocols-below-reward-edge',
      comment:
        "The kit's protocols/ only translate OpenRLHF's and slime's bodies to scoring items and back; reward-edge/ mounts them on HTTP and NATS. The edge depends on the protocols, never the reverse.",
      severity: 'error',
      from: { path: '^shared/service-kit/src/protocols/' },
      to: { path: '^shared/service-kit/src/(reward-edge|http|nats)/' },
    },
    {
      name: 'no-circular',
      comment: 'Import cycles make load order matter and modules impossible to test alone.',
      severity: 'error',
      // The in-isolate runtime's files are concatenated into one script at load time, so they have no load order.
      from: { pathNot: '/js-isolate/runtime/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^openapi/types/', '[.]tools/', 'runtime/node-packages/'] },
    // What a module loads at run time: type-only imports are erased (a core may name an edge's types).
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
    preserveSymlinks: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
