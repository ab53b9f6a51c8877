/**
 * Admission cost (issue 15): ConfigMap creates through one orch-apiserver (SQLite, temp data dir) with no
 * webhook, one no-op mutating webhook, one mutating plus one validating no-op webhook and, when the server
 * has the plugin, a ValidatingAdmissionPolicy with three CEL validations. Phases alternate within each round
 * (and run in reverse order every other round) so that drift (a growing store, other load on the machine)
 * weighs on every phase alike; ratios are taken against the same round's baseline.
 *
 *   npm run bench -- admission [--rounds N]       # BENCH_PHASE_MS sets the phase length (default 5000)
 *
 * The webhook is a child process (bench/admission-webhook.ts): its CPU is reported per phase, since on a
 * small machine it competes with the server under test.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { PLUGIN_FACTORIES } from '../src/admission/plugins.js';
import { ADMISSIONREGISTRATION_GROUP } from '../src/api/naming.js';
import { SERVE_FLAG, type FromWebhook, type ToWebhook } from './admission-webhook.js';
import { connectAll, request, startChild, type Target } from './api.js';
import type { H2Client } from './h2-client.js';
import { childPidWith, sampleTree } from './proc-sample.js';
import { fmt, runFor, type LoopResult } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 5000);
const WARMUP_MS = 1500;
const CLIENTS = 64;
const SESSIONS = 8;
const REG = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1`;
const NAMESPACE = 'bench-admission';
const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const REJECT_LABEL = 'bench-reject';

interface Phase {
  readonly name: string;
  readonly mutate: boolean;
  readonly validate: boolean;
  readonly policy: boolean;
}

const POLICY_SERVED = PLUGIN_FACTORIES.has('ValidatingAdmissionPolicy');
const PHASES: readonly Phase[] = [
  { name: 'no webhook (baseline)', mutate: false, validate: false, policy: false },
  { name: '1 mutating webhook', mutate: true, validate: false, policy: false },
  { name: '1 mutating + 1 validating webhook', mutate: true, validate: true, policy: false },
  ...(POLICY_SERVED ? [{ name: 'ValidatingAdmissionPolicy, 3 CEL validations', mutate: false, validate: false, policy: true }] : []),
];

type Stats = Extract<FromWebhook, { type: 'stats' }>;

/** The webhook child: started, asked for its CPU and call counts, stopped. */
class WebhookProcess {
  private waiting: Array<(s: Stats) => void> = [];

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    readonly caBundle: string,
  ) {
    child.on('message', (m: FromWebhook) => {
      if (m.type === 'stats') this.waiting.shift()?.(m);
    });
  }

  static start(): Promise<WebhookProcess> {
    const file = new URL('./admission-webhook.ts', import.meta.url).pathname;
    const child = fork(file, [SERVE_FLAG], { execArgv: ['--import', 'tsx'], cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return new Promise((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the webhook process exited ${code} before it was ready`)));
      child.once('message', (m: FromWebhook) => {
        if (m.type === 'ready') resolve(new WebhookProcess(child, m.url, m.caBundle));
      });
    });
  }

  stats(): Promise<Stats> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.send({ type: 'stats' } satisfies ToWebhook);
    });
  }

  async stop(): Promise<void> {
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.send({ type: 'stop' } satisfies ToWebhook);
    await exited;
  }
}

function webhookConfiguration(kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration', hook: WebhookProcess, path: string) {
  return {
    apiVersion: `${ADMISSIONREGISTRATION_GROUP}/v1`,
    kind,
    metadata: { name: `bench${path.replace('/', '-')}` },
    webhooks: [{
      name: `noop${path.replace('/', '-')}.bench.example.com`,
      clientConfig: { url: `${hook.url}${path}`, caBundle: hook.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      sideEffects: 'None',
      failurePolicy: 'Fail',
      admissionReviewVersions: ['v1'],
    }],
  };
}

const POLICY_NAME = 'bench-configmaps';
const policy = {
  apiVersion: `${ADMISSIONREGISTRATION_GROUP}/v1`,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: POLICY_NAME },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
    validations: [
      { expression: 'object.metadata.name.size() <= 253', message: 'the name is too long' },
      { expression: '!has(object.data) || object.data.size() <= 16', message: 'too many data keys' },
      { expression: `!has(object.metadata.labels) || !('${REJECT_LABEL}' in object.metadata.labels)`, message: `labelled ${REJECT_LABEL}` },
    ],
  },
};
const binding = {
  apiVersion: `${ADMISSIONREGISTRATION_GROUP}/v1`,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: POLICY_NAME },
  spec: { policyName: POLICY_NAME, validationActions: ['Deny'] },
};

/** Creates and deletes the admission configuration objects so that exactly the phase's ones exist. */
class AdmissionState {
  private current: Phase = PHASES[0]!;
  private probes = 0;

  constructor(
    private readonly s: H2Client,
    private readonly t: Target,
    private readonly hook: WebhookProcess,
  ) {}

  async enter(p: Phase): Promise<void> {
    const c = this.current;
    const toggle = async (want: boolean, have: boolean, create: () => Promise<unknown>, remove: () => Promise<unknown>) => {
      if (want && !have) await create();
      if (!want && have) await remove();
    };
    const post = (path: string, body: unknown) => request(this.s, this.t, 'POST', path, body);
    const del = (path: string) => request(this.s, this.t, 'DELETE', path);
    await toggle(p.mutate, c.mutate, () => post(`${REG}/mutatingwebhookconfigurations`, webhookConfiguration('MutatingWebhookConfiguration', this.hook, '/mutate')),
      () => del(`${REG}/mutatingwebhookconfigurations/bench-mutate`));
    await toggle(p.validate, c.validate, () => post(`${REG}/validatingwebhookconfigurations`, webhookConfiguration('ValidatingWebhookConfiguration', this.hook, '/validate')),
      () => del(`${REG}/validatingwebhookconfigurations/bench-validate`));
    await toggle(p.policy, c.policy,
      async () => {
        await post(`${REG}/validatingadmissionpolicies`, policy);
        await post(`${REG}/validatingadmissionpolicybindings`, binding);
      },
      async () => {
        await del(`${REG}/validatingadmissionpolicybindings/${POLICY_NAME}`);
        await del(`${REG}/validatingadmissionpolicies/${POLICY_NAME}`);
      });
    this.current = p;
    await this.settled(p);
  }

  /** Configuration reaches admission through the watch cache: probe until the server admits as the phase says. */
  private async settled(p: Phase): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const before = await this.hook.stats();
      await request(this.s, this.t, 'POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `probe-${this.probes++}` } });
      const after = await this.hook.stats();
      const called = (path: string) => (after.calls[path] ?? 0) > (before.calls[path] ?? 0);
      let ok = called('/mutate') === p.mutate && called('/validate') === p.validate;
      if (ok && POLICY_SERVED) {
        const labelled = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `probe-${this.probes++}`, labels: { [REJECT_LABEL]: 'yes' } } };
        const rejected = await request(this.s, this.t, 'POST', CONFIGMAPS, labelled).then(() => false, () => true);
        ok = rejected === p.policy;
      }
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`phase "${p.name}": the server's admission did not match the configuration within 10 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

interface Measured {
  run: LoopResult;
  /** One client, one create at a time: the latency a webhook adds without queueing behind 63 others. */
  single: LoopResult;
  webhookCpuMicros: number;
  webhookCalls: number;
  webhookConnections: number;
  serverCpuSeconds: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { rounds: { type: 'string' } } });
  const rounds = Number(values.rounds ?? 3);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds: want a positive integer, got "${values.rounds}"`);
  const hook = await WebhookProcess.start();
  const child = await startChild();
  try {
    const pid = childPidWith(`--data-dir=${child.dir}`);
    if (pid === undefined) throw new Error('cannot find the orch-apiserver process');
    const serverCpu = () => sampleTree(pid)?.cpuSeconds ?? NaN;
    const t = child.target;
    const sessions = await connectAll(t, SESSIONS);
    const s = (w: number) => sessions[w % SESSIONS]!;
    await request(s(0), t, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    const state = new AdmissionState(s(0), t, hook);
    const data = { payload: 'x'.repeat(1024) };
    let runs = 0;
    const measure = async (p: Phase, ms: number): Promise<Measured> => {
      await state.enter(p);
      const tag = `r${runs++}`;
      const [h0, c0] = [await hook.stats(), serverCpu()];
      const run = await runFor(ms, CLIENTS, (w, i) =>
        request(s(w), t, 'POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${tag}-${w}-${i}` }, data }));
      const [h1, c1] = [await hook.stats(), serverCpu()];
      const single = await runFor(Math.max(500, ms / 3), 1, (w, i) =>
        request(s(w), t, 'POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `one-${tag}-${i}` }, data }));
      const calls = (x: Stats) => Object.values(x.calls).reduce((a, n) => a + n, 0);
      return { run, single, webhookCpuMicros: h1.cpuMicros - h0.cpuMicros, webhookCalls: calls(h1) - calls(h0), webhookConnections: h1.connections - h0.connections, serverCpuSeconds: c1 - c0 };
    };
    for (const p of PHASES) await measure(p, WARMUP_MS); // JIT and connection pools, not recorded
    const results: Measured[][] = PHASES.map(() => []);
    for (let r = 0; r < rounds; r++) {
      const order = PHASES.map((_, i) => i);
      if (r % 2 === 1) order.reverse();
      for (const i of order) results[i]!.push(await measure(PHASES[i]!, PHASE_MS));
    }
    for (const x of sessions) x.close();
    printReport(results, rounds);
  } finally {
    await child.stop();
    await hook.stop();
  }
}

function printReport(results: Measured[][], rounds: number): void {
  const base = results[0]!;
  const rows = PHASES.map((p, i) => {
    const ms = results[i]!;
    const ops = ms.reduce((a, m) => a + m.run.ops, 0);
    const seconds = ms.reduce((a, m) => a + m.run.seconds, 0);
    const ratio = mean(ms.map((m, r) => m.run.perSecond / base[r]!.run.perSecond));
    const p50Added = mean(ms.map((m, r) => m.run.p50 - base[r]!.run.p50));
    const hookMicros = ms.reduce((a, m) => a + m.webhookCpuMicros, 0);
    const hookCalls = ms.reduce((a, m) => a + m.webhookCalls, 0);
    const serverCpu = ms.reduce((a, m) => a + m.serverCpuSeconds, 0);
    return {
      phase: p.name,
      'creates/s': fmt(ops / seconds),
      'p50 ms': fmt(median(ms.map((m) => m.run.p50)), 2),
      'p99 ms': fmt(median(ms.map((m) => m.run.p99)), 1),
      'vs baseline': i === 0 ? '1.00' : fmt(ratio, 2),
      'p50 added ms': i === 0 ? '-' : fmt(p50Added, 2),
      '1-client p50 ms': fmt(median(ms.map((m) => m.single.p50)), 2),
      '1-client p50 added': i === 0 ? '-' : fmt(mean(ms.map((m, r) => m.single.p50 - base[r]!.single.p50)), 2),
      'webhook CPU % core': fmt((hookMicros / 1e6 / seconds) * 100),
      'webhook µs/call': hookCalls > 0 ? fmt(hookMicros / hookCalls) : '-',
      'webhook TLS conns': i === 0 ? '-' : fmt(ms.reduce((a, m) => a + m.webhookConnections, 0)),
      'server µs/create': fmt((serverCpu * 1e6) / ops),
      errors: String(ms.reduce((a, m) => a + m.run.errors, 0)),
      ratios: i === 0 ? '-' : ms.map((m, r) => fmt(m.run.perSecond / base[r]!.run.perSecond, 2)).join(' '),
    };
  });
  console.log(`admission benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ` +
    `${CLIENTS} clients over ${SESSIONS} HTTP/2 connections, 1 KiB ConfigMap creates, orch-apiserver (SQLite), ${rounds} rounds of ${PHASE_MS} ms per phase, ` +
    'phases alternated (reversed every other round); creates/s over all rounds, p50/p99 the median of the rounds, ratios per round against that round\'s baseline');
  console.table(rows);
  const num = (v: string | undefined) => Number((v ?? '').replace(/,/g, ''));
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const added = num(rows[1]!['1-client p50 added']);
  const signed = (v: string | undefined) => (v?.startsWith('-') ? v : `+${v}`);
  console.log(`one mutating webhook: p50 ${signed(fmt(added, 2))} ms with one client (target ≤ 1.5 ms: ${verdict(added <= 1.5)}), ` +
    `${signed(rows[1]!['p50 added ms'])} ms with ${CLIENTS} (queueing at the lower throughput), throughput ${rows[1]!['vs baseline']} of baseline`);
  const both = num(rows[2]!['vs baseline']);
  console.log(`mutating + validating webhook: throughput ${fmt(both * 100)} % of baseline (target ≥ 50 %: ${verdict(both >= 0.5)})`);
  if (POLICY_SERVED) {
    const vap = num(rows[3]!['vs baseline']);
    console.log(`ValidatingAdmissionPolicy: throughput ${fmt(vap * 100)} % of baseline (target ≥ 85 %: ${verdict(vap >= 0.85)})`);
  } else {
    console.log('ValidatingAdmissionPolicy: not measured (the server has no ValidatingAdmissionPolicy plugin)');
  }
}
