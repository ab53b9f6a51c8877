/** `npm run bench -- <suite> [args]`: storage, api, ... Each suite prints its own table. */
const suites: Record<string, () => Promise<{ main(args: string[]): Promise<void> }>> = {
  storage: () => import('./storage.js'),
  api: () => import('./api.js'),
  listwatch: () => import('./listwatch.js'),
  rbac: () => import('./rbac.js'),
  authn: () => import('./authn.js'),
  authz: () => import('./authz.js'),
  apply: () => import('./apply.js'),
  soak: () => import('./soak.js'),
  admission: () => import('./admission.js'),
  audit: () => import('./audit.js'),
  encryption: () => import('./encryption.js'),
  apf: () => import('./apf.js'),
  metrics: () => import('./metrics.js'),
  tracing: () => import('./tracing.js'),
  testenv: () => import('./testenv.js'),
  client: () => import('./client.js'),
  naming: () => import('./naming.js'),
  'custom-schema': () => import('./custom-schema.js'),
  crd: () => import('./crd.js'),
  orchctl: () => import('./orchctl.js'),
  'namespace-delete': () => import('./namespace-delete.js'),
  gc: () => import('./gc.js'),
  controllers: () => import('./controllers.js'),
};

const [name, ...args] = process.argv.slice(2);
const load = name ? suites[name] : undefined;
if (!load) {
  console.error(`usage: npm run bench -- <${Object.keys(suites).join('|')}> [args]`);
  process.exit(2);
}
await (await load()).main(args);
