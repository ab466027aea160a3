// The server's import rules (docs/architecture.md, "Layers and boundaries"), checked by `npm run lint`.

/** The layers of src/, from the ground up: a file imports only from its own layer or those below it. */
const LAYERS = [
  { name: 'lib', paths: ['^src/lib/', '^src/config\\.ts$'] },
  { name: 'db', paths: ['^src/db/'] },
  { name: 'http', paths: ['^src/http/'] },
  { name: 'access', paths: ['^src/access/'] },
  { name: 'providers', paths: ['^src/providers/'] },
  { name: 'jobs', paths: ['^src/jobs/'] },
  { name: 'events', paths: ['^src/events/'] },
  { name: 'metrics', paths: ['^src/metrics/'] },
  { name: 'modules', paths: ['^src/modules/'] },
  { name: 'gateway', paths: ['^src/gateway/'] },
  {
    name: 'wiring',
    paths: ['^src/(main|cli|demo|server|app|workers|services|openapi-document|event-catalogue)\\.ts$'],
  },
];

const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.name}`,
  comment: `${layer.name} imports nothing above it: ${LAYERS.slice(i + 1)
    .map((l) => l.name)
    .join(', ')}`,
  severity: 'error',
  from: { path: layer.paths },
  to: { path: LAYERS.slice(i + 1).flatMap((l) => l.paths) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files never import each other in a loop, type imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-circular',
      comment: 'Modules (any two folders) never import each other in a loop',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'module-through-entry',
      comment: "A module uses another only through that module's public entry, its index.ts",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'outside-through-entry',
      comment: 'The gateway and the wiring use a module only through its public entry, its index.ts',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/modules/' },
      to: { path: '^src/modules/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'no-own-entry',
      comment: "A module's files import each other directly, never through their own index.ts",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/$1/index\\.ts$' },
    },
    {
      name: 'provider-through-registry',
      comment:
        "Only providers/ itself reaches into a provider's folder; the rest goes through registry.ts and types.ts",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/providers/' },
      to: { path: '^src/providers/[^/]+/' },
    },
  ],
  options: {
    // Type-only imports count: a cycle of types is a cycle of meaning.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
  },
};
