// Layer rules checked by `npm run boundaries` (part of `npm test`); docs/architecture.md draws them.
// Layers, top to bottom (an import may only point down or sideways within a folder):
//   composition root  core/{app,container,main,server}.ts
//   HTTP slices       core/features/<slice>/
//   orchestration     core/runs/
//   domain services   core/backup/, core/recovery/, core/agent-protocol/, core/insight/
//   base              everything else under core/ (engine, storage, db, security, plugin-host, notifications,
//                     events, metrics, http, auth, config, lib)
const DOMAIN = '^core/(runs|backup|recovery|agent-protocol|insight)/';
const BASE = '^core/(engine|storage|db|security|plugin-host|events|notifications|metrics|http|auth|config|lib)/';
// Provider SDKs belong to the plugins that use them; core persists through MikroORM's own drivers.
const VENDOR_SDKS =
  'node_modules/(@types/)?(@googleapis/[^/]+|googleapis|google-auth-library|mysql2|pg|pg-[^/]+|better-sqlite3)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'Folders form a graph without cycles.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-module-cycle',
      comment: 'Modules form a graph without cycles.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'below-features',
      comment: 'Only the composition root and other slices import an HTTP slice (core/features/*).',
      severity: 'error',
      from: { path: `${DOMAIN}|${BASE}` },
      to: { path: '^core/features/' },
    },
    {
      name: 'base-to-domain',
      comment: 'Base modules (engine, storage, db, http, ...) do not import domain services.',
      severity: 'error',
      from: { path: BASE },
      to: { path: DOMAIN },
    },
    {
      name: 'domain-to-orchestration',
      comment: 'Domain services do not import orchestration (core/runs) which sits above them.',
      severity: 'error',
      from: { path: '^core/(backup|recovery|agent-protocol|insight)/' },
      to: { path: '^core/runs/' },
    },
    {
      name: 'composition-root-only',
      comment: 'Only the composition root (core/app.ts, core/container.ts) imports the container or the app.',
      severity: 'error',
      from: { pathNot: '^core/(app|container|main|server)\\.ts$' },
      to: { path: '^core/(app|container|main|server)\\.ts$' },
    },
    {
      name: 'core-to-vendor-sdk',
      comment: 'Provider SDKs are imported by plugins only.',
      severity: 'error',
      // core/db/pg-cluster.ts holds a PostgreSQL session of its own (locks, LISTEN) through `pg`,
      // the driver MikroORM's PostgreSQL driver runs on; the ORM's pool cannot keep a session.
      from: { path: '^(core|agent)/', pathNot: '^core/db/pg-cluster\\.ts$' },
      to: { path: VENDOR_SDKS },
    },
    {
      name: 'plugin-to-core',
      comment: 'A plugin imports only @backplane/plugin-api and npm packages, like a third-party plugin.',
      severity: 'error',
      from: { path: '^plugins/' },
      to: { path: '^(core|agent|test|bench|scripts)/|^packages/(?!plugin-api/)' },
    },
    {
      name: 'plugin-to-plugin',
      comment: 'Plugins do not import each other.',
      severity: 'error',
      from: { path: '^plugins/([^/]+)/' },
      to: { path: '^plugins/', pathNot: '^plugins/$1/' },
    },
    {
      name: 'package-to-app',
      comment: 'The published packages (packages/*) stand alone: they import neither core, the agent nor plugins.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^(core|agent|plugins|test)/' },
    },
    {
      name: 'agent-imports-kernel',
      comment:
        'The agent stands on the run kernel (core/engine/index.ts), the wire (core/agent-protocol/wire.ts) and the ' +
        'standalone plugin loader (plugins are Fastify plugins: loading them needs a bare Fastify instance, which ' +
        'the kernel must not hold); @backplane/plugin-api and npm packages besides.',
      severity: 'error',
      from: { path: '^agent/' },
      to: {
        path: '^(core|plugins|packages)/',
        pathNot: '^core/(engine/index|agent-protocol/wire|plugin-host/standalone)\\.ts$|^packages/plugin-api/',
      },
    },
    {
      name: 'kernel-stands-alone',
      comment: 'The run kernel (core/engine/) imports no other part of core: no ORM, entity, HTTP or feature.',
      severity: 'error',
      from: { path: '^core/engine/' },
      to: { path: '^core/(?!engine/)|node_modules/(@mikro-orm/[^/]+|fastify|fastify-plugin|@fastify/[^/]+|typebox)/' },
    },
    {
      name: 'kernel-through-its-entry',
      comment: 'Outside the kernel, core uses it through its entry module only, as the agent does.',
      severity: 'error',
      from: { path: '^(core|agent)/', pathNot: '^core/engine/' },
      to: { path: '^core/engine/', pathNot: '^core/engine/index\\.ts$' },
    },
    {
      name: 'agent-to-http',
      comment: 'The agent runs engine, storage, plugin-host and recovery pieces, never HTTP code.',
      severity: 'error',
      from: { path: '^agent/' },
      to: {
        path: '^core/(features|http|auth|runs)/|^core/(app|container|server)\\.ts$|node_modules/(fastify|@fastify/[^/]+|fastify-plugin)/',
      },
    },
    {
      name: 'agent-reaches-features',
      comment: 'Nothing the agent loads leads to an HTTP slice.',
      severity: 'error',
      from: { path: '^agent/' },
      to: { path: '^core/features/', reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Build output (the console's bundle) is not source: its chunks import each other in cycles by design.
    exclude: { path: '^(test|bench|scripts)/|^packages/[^/]+/dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: {
      archi: { collapsePattern: '^(core/features/[^/]+|core/[^/]+|plugins/[^/]+|agent)/' },
      text: { highlightFocused: true },
    },
  },
};
