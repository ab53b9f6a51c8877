/**
 * `npm run fuzz -- --seed N --inputs 100000 --minutes M [--concurrency C] [--only I,J] [--url U --token T --ca FILE]`
 * Seeded fuzz run (test/fuzz/) against an in-process server on memory storage, or against a running server
 * given by --url, --token (a cluster admin's, for setup and checks only) and --ca. Prints totals by status,
 * inputs per second, every failing input with its seed and number, and exits 1 on any failure.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startServer, type RunningServer } from '../src/index.js';
import { fuzz, type FuzzReport } from '../test/fuzz/driver.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    inputs: { type: 'string', default: '10000' },
    minutes: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    only: { type: 'string' },
    url: { type: 'string' },
    token: { type: 'string' },
    ca: { type: 'string' },
    'http2-share': { type: 'string', default: '0.2' },
  },
});

const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
let server: RunningServer | undefined;
const internalErrors: string[] = [];
let target: { url: string; caCertPem: string; adminToken: string };
if (values.url) {
  if (!values.token || !values.ca) throw new Error('--url needs --token (a cluster admin token) and --ca (the server CA file)');
  target = { url: values.url, adminToken: values.token, caCertPem: readFileSync(values.ca, 'utf8') };
} else {
  server = await startServer({
    port: 0,
    storage: { type: 'memory' },
    // A wide service range: a long run creates many Services, and a full range is a (documented) 500.
    serviceClusterIPRange: '10.96.0.0/12',
    log: (m) => void (m.startsWith('internal error') && internalErrors.push(m)),
  });
  target = server;
}
console.log(`fuzz: seed ${seed}, ${values.inputs} inputs${values.minutes ? `, at most ${values.minutes} min` : ''}, against ${target.url}`);
let report: FuzzReport;
try {
  report = await fuzz(target, {
    seed,
    inputs: Number(values.inputs),
    ...(values.minutes ? { timeLimitMs: Number(values.minutes) * 60_000 } : {}),
    concurrency: Number(values.concurrency),
    http2Share: Number(values['http2-share']),
    ...(values.only ? { only: values.only.split(',').map(Number) } : {}),
    maxFailures: 50,
    log: (l) => console.log(l),
  });
} finally {
  await server?.close();
}
console.log(`\nfuzz: seed ${seed}: ${report.sent} inputs in ${(report.elapsedMs / 1000).toFixed(1)} s = ${report.inputsPerSecond} inputs/s`);
console.log(`by status: ${Object.entries(report.byStatus).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}: ${v}`).join(', ')}`);
console.log(`watch streams cut after their first bytes: ${report.streamsCut}; protobuf-only Accept answered with a JSON error: ${report.protobufErrorsAsJson}`);
for (const e of internalErrors.slice(0, 10)) console.log(`server log: ${e.slice(0, 1500)}`);
for (const c of report.changed) console.log(`CHANGED: ${c}`);
const failed = report.failures.length + report.changed.length;
console.log(failed === 0 ? 'fuzz: no failures' : `fuzz: ${report.failures.length} failing inputs, ${report.changed.length} sentinel changes`);
process.exit(failed === 0 ? 0 : 1);
