import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { AUTOSCALING_ALPHA_PREFIX, EVENTS_GROUP, FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';
import { startServer, type TestServer } from '../../index.js';
import { runCli } from '../main.js';
import { ConversionError, convertObject, FLOWCONTROL_GROUP, LOCAL_PREFERRED } from './convert-rules.js';

const FC = FLOWCONTROL_GROUP;

/** orchctl in this process with buffered streams. */
async function orchctlInProcess(kubeconfig: string | undefined, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { out: (t: string) => void (stdout += t), err: (t: string) => void (stderr += t), readStdin: async () => '', stdinIsTTY: false, stdoutIsTTY: false, env: { HOME: '/nonexistent-home' } };
  const code = await runCli([...(kubeconfig ? ['--kubeconfig', kubeconfig] : []), ...args], io);
  return { code, stdout, stderr };
}
const local = (g: string) => LOCAL_PREFERRED[g];
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const hpaV1 = (spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject =>
  ({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: ref, maxReplicas: 5, ...spec }, ...extra }) as KubeObject;
const cpu = (n: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: n } } });
const hpaV2 = (spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject =>
  ({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: ref, maxReplicas: 5, ...spec }, ...extra }) as KubeObject;
const plc = (apiVersion: string, shares: number | undefined, annotations?: Record<string, string>): KubeObject =>
  ({ apiVersion, kind: 'PriorityLevelConfiguration', metadata: { name: 'p', ...(annotations ? { annotations } : {}) }, spec: { type: 'Limited', limited: shares === undefined ? {} : { nominalConcurrencyShares: shares } } }) as KubeObject;

describe('convert rules (spec 9.6)', () => {
  const cases: { title: string; input: KubeObject; to?: string; want: KubeObject }[] = [
    { title: 'HPA v1 target -> v2 CPU metric', input: hpaV1({ targetCPUUtilizationPercentage: 60 }), to: 'autoscaling/v2', want: hpaV2({ metrics: [cpu(60)] }) },
    { title: 'HPA v1 without target -> v2 80% CPU (v1 default)', input: hpaV1({}), want: hpaV2({ metrics: [cpu(80)] }) },
    { title: 'HPA v2 CPU metric -> v1 target', input: hpaV2({ metrics: [cpu(70)], minReplicas: 2 }), to: 'autoscaling/v1', want: hpaV1({ targetCPUUtilizationPercentage: 70, minReplicas: 2 }) },
    {
      title: 'HPA v1 status CPU reading -> v2 currentMetrics',
      input: hpaV1({ targetCPUUtilizationPercentage: 50 }, { status: { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 40 } }),
      to: 'autoscaling/v2',
      want: hpaV2({ metrics: [cpu(50)] }, { status: { currentReplicas: 2, desiredReplicas: 3, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40 } } }] } }),
    },
    { title: 'FlowSchema v1beta3 -> v1 only retags', input: { apiVersion: `${FC}/v1beta3`, kind: 'FlowSchema', metadata: { name: 'f' }, spec: { matchingPrecedence: 5 } } as KubeObject, want: { apiVersion: `${FC}/v1`, kind: 'FlowSchema', metadata: { name: 'f' }, spec: { matchingPrecedence: 5 } } as KubeObject },
    { title: 'PLC v1 explicit 0 -> v1beta3 with the preserve-zero annotation', input: plc(`${FC}/v1`, 0), to: `${FC}/v1beta3`, want: plc(`${FC}/v1beta3`, 0, { [FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION]: '' }) },
    { title: 'PLC v1beta3 0 with the annotation -> v1 keeps 0, drops the annotation', input: plc(`${FC}/v1beta3`, 0, { [FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION]: '' }), want: plc(`${FC}/v1`, 0) },
    { title: 'PLC v1beta3 0 without the annotation -> v1 unset (the default 30 applies)', input: plc(`${FC}/v1beta3`, 0), want: plc(`${FC}/v1`, undefined) },
    { title: 'PLC v1 unset -> v1beta3 unset', input: plc(`${FC}/v1`, undefined), to: `${FC}/v1beta3`, want: plc(`${FC}/v1beta3`, undefined) },
    {
      title: 'core Event -> events/v1 renames',
      input: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p' }, message: 'hi', count: 2, reportingComponent: 'c' } as KubeObject,
      to: `${EVENTS_GROUP}/v1`,
      want: { apiVersion: `${EVENTS_GROUP}/v1`, kind: 'Event', metadata: { name: 'e' }, reportingController: 'c', regarding: { kind: 'Pod', name: 'p' }, note: 'hi', deprecatedCount: 2 } as KubeObject,
    },
    {
      title: 'events/v1 -> core Event renames back',
      input: { apiVersion: `${EVENTS_GROUP}/v1`, kind: 'Event', metadata: { name: 'e' }, regarding: { kind: 'Pod' }, note: 'n', deprecatedSource: { component: 'x' } } as KubeObject,
      to: 'v1',
      want: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod' }, message: 'n', source: { component: 'x' } } as KubeObject,
    },
    { title: 'an object of another group than --output-version is left as it is', input: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } as KubeObject, to: 'autoscaling/v1', want: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } as KubeObject },
  ];
  for (const c of cases) {
    it(`spec 9.6: ${c.title}`, () => assert.deepEqual(convertObject(c.input, c.to, local), c.want));
  }

  const refusals: { title: string; input: KubeObject; to: string; message: RegExp }[] = [
    { title: 'v2 metric with no v1 field', input: hpaV2({ metrics: [{ type: 'Pods', pods: {} }] }), to: 'autoscaling/v1', message: /spec\.metrics has a Pods metric/ },
    { title: 'v2 behavior', input: hpaV2({ metrics: [cpu(50)], behavior: { scaleUp: {} } }), to: 'autoscaling/v1', message: /spec\.behavior/ },
    { title: 'v2 status conditions', input: hpaV2({ metrics: [cpu(50)] }, { status: { conditions: [{ type: 'AbleToScale' }] } }), to: 'autoscaling/v1', message: /status\.conditions/ },
    { title: 'v1 with the server-written alpha annotations', input: hpaV1({}, { metadata: { name: 'h', annotations: { [`${AUTOSCALING_ALPHA_PREFIX}metrics`]: '[]' } } }), to: 'autoscaling/v2', message: /annotation autoscaling\.alpha/ },
    { title: 'a version change with no rule', input: { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'd' } } as KubeObject, to: 'apps/v1', message: /cannot convert Deployment from apps\/v1beta1 to apps\/v1: it converts only .*HorizontalPodAutoscaler/ },
    { title: 'an Event field of the other version', input: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, note: 'x' } as KubeObject, to: `${EVENTS_GROUP}/v1`, message: /field "note" is not an Event field of v1/ },
  ];
  for (const r of refusals) {
    it(`spec 9.6: refused: ${r.title}`, () => assert.throws(() => convertObject(r.input, r.to, local), (e: unknown) => e instanceof ConversionError && r.message.test(e.message)));
  }
});

describe('orchctl convert (spec 9.7)', () => {
  let server: TestServer;
  let kc: string;
  let dir: string;
  before(async () => {
    server = await startServer({});
    kc = server.writeKubeconfig();
    dir = mkdtempSync(join(tmpdir(), 'orchctl-convert-'));
    writeFileSync(join(dir, 'hpa.yaml'), 'apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 4\n  targetCPUUtilizationPercentage: 55\n');
    writeFileSync(join(dir, 'two.yaml'), `apiVersion: ${FC}/v1\nkind: FlowSchema\nmetadata: {name: f}\nspec: {matchingPrecedence: 9}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n`);
    writeFileSync(join(dir, 'deploy.yaml'), 'apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: d}\n');
  });
  after(() => server.close());

  it('spec 9.7: default output version is the group\'s preferred version from discovery (autoscaling/v2)', async () => {
    const r = await orchctlInProcess(kc, ['convert', '-f', join(dir, 'hpa.yaml')]);
    assert.equal(r.code, 0, r.stderr);
    const out = parseYaml(r.stdout) as KubeObject;
    assert.equal(out.apiVersion, 'autoscaling/v2');
    assert.deepEqual((out.spec as { metrics: unknown }).metrics, [cpu(55)]);
  });

  it('spec 9.7: --output-version picks the version; several objects print as one List; other groups pass through', async () => {
    const r = await orchctlInProcess(kc, ['convert', '-f', join(dir, 'two.yaml'), '--output-version', `${FC}/v1beta3`, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const list = JSON.parse(r.stdout) as { kind: string; items: KubeObject[] };
    assert.equal(list.kind, 'List');
    assert.deepEqual(list.items.map((o) => o.apiVersion), [`${FC}/v1beta3`, 'v1']);
  });

  it('spec 9.7: a version the server does not serve is refused, naming the served ones', async () => {
    const r = await orchctlInProcess(kc, ['convert', '-f', join(dir, 'hpa.yaml'), '--output-version', 'autoscaling/v2beta2']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /--output-version "autoscaling\/v2beta2": the server does not serve this version \(served: .*v2/);
  });

  it('spec 9.7: --local converts without a server; an unknown conversion exits 1 naming the kind and versions', async () => {
    const ok = await orchctlInProcess(undefined, ['--server', 'https://127.0.0.1:1', 'convert', '--local', '-f', join(dir, 'hpa.yaml')]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal((parseYaml(ok.stdout) as KubeObject).apiVersion, 'autoscaling/v2');
    const bad = await orchctlInProcess(kc, ['convert', '-f', join(dir, 'deploy.yaml')]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^error: orchctl cannot convert Deployment from apps\/v1beta2 to apps\/v1/);
  });

  it('reference behaviour: -o other than yaml or json is a usage error', async () => {
    const r = await orchctlInProcess(kc, ['convert', '--local', '-f', join(dir, 'hpa.yaml'), '-o', 'name']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /convert prints yaml or json/);
  });
});
