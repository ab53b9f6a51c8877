import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GROUP_SUFFIX } from '../../api/naming.js';
import { defaultVersionEnabled, parseRuntimeConfig, servingFilter } from './versions.js';

const S = GROUP_SUFFIX;
const FLOWCONTROL = `flowcontrol.apiserver.${S}`;

test('spec 3.2: stable versions are served by default, alpha are not, beta only where the reference enables it', () => {
  const cases: [string, string, boolean][] = [
    ['', 'v1', true],
    ['batch', 'v1', true],
    [FLOWCONTROL, 'v1beta3', true],
    [`networking.${S}`, 'v1beta1', false],
    [`resource.${S}`, 'v1alpha3', false],
  ];
  for (const [group, version, want] of cases) assert.equal(defaultVersionEnabled(group, version), want, `${group}/${version}`);
});

test('spec 9.4: --runtime-config entries parse to key and on/off; a missing value means true', () => {
  const cases: [string, Record<string, boolean>][] = [
    ['', {}],
    ['batch/v1=false', { 'batch/v1': false }],
    [`resource.${S}/v1alpha3`, { [`resource.${S}/v1alpha3`]: true }],
    [' api/all=false , v1=true,,api/v1 ', { 'api/all': false, v1: true, 'api/v1': true }],
    ['batch/v1/jobs=false', { 'batch/v1/jobs': false }],
    ['batch/v1=true,batch/v1=false', { 'batch/v1': false }],
  ];
  for (const [text, want] of cases) assert.deepEqual(parseRuntimeConfig(text), want, text);
});

test('spec 9.4: malformed --runtime-config keys and values are start-up errors naming the entry', () => {
  const cases: [string, RegExp][] = [
    ['batch/v1=yes', /--runtime-config: invalid value "yes" for "batch\/v1" \(true or false\)/],
    ['batch/v1=1', /invalid value "1"/],
    ['batch', /--runtime-config: invalid key "batch"/],
    ['=true', /invalid key ""/],
    ['batch//jobs', /invalid key "batch\/\/jobs"/],
    ['a/b/c/d', /invalid key "a\/b\/c\/d"/],
    ['batch/v1/Jobs', /a resource is a lowercase plural, not "Jobs"/],
  ];
  for (const [text, want] of cases) assert.throws(() => parseRuntimeConfig(text), want, text);
});

/** The start-up error of a runtime config, or '' when it is accepted. */
function startupError(text: string): string {
  try {
    servingFilter(parseRuntimeConfig(text));
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}

test('spec 9.4, reference behaviour: unknown and removed versions cannot be enabled, naming the release and replacement', () => {
  const cases: [string, string][] = [
    ['foo.example.com/v1', '--runtime-config: unknown group/version "foo.example.com/v1"'],
    ['batch/v7', 'unknown group/version "batch/v7"'],
    ['batch/v1/widgets', 'unknown resource "widgets" in batch/v1'],
    ['extensions/v1beta1=true', `extensions/v1beta1 was removed in release 1.22 (Ingress: use networking.${S}/v1 Ingress) and release 1.16 (DaemonSet: use apps/v1 DaemonSet`],
    ['batch/v1beta1', '--runtime-config: batch/v1beta1 was removed in release 1.25 (CronJob: use batch/v1 CronJob)'],
    ['policy/v1beta1', 'PodSecurityPolicy: use pod security admission or an admission webhook'],
    ['autoscaling/v2beta2', 'release 1.26 (HorizontalPodAutoscaler: use autoscaling/v2 HorizontalPodAutoscaler)'],
    ['autoscaling/v2beta1', 'autoscaling/v2beta1 was removed in release 1.25'],
    [`${FLOWCONTROL}/v1beta2`, `v1beta2 was removed in release 1.29 (FlowSchema: use ${FLOWCONTROL}/v1 FlowSchema`],
    [`${FLOWCONTROL}/v1beta1`, `v1beta1 was removed in release 1.26 (FlowSchema: use ${FLOWCONTROL}/v1 FlowSchema`],
    [`discovery.${S}/v1beta1`, 'release 1.25 (EndpointSlice'],
    [`events.${S}/v1beta1`, 'release 1.25 (Event'],
    [`node.${S}/v1beta1`, 'release 1.25 (RuntimeClass'],
    ['apps/v1beta1', 'apps/v1beta1 was removed in release 1.16'],
    ['apps/v1beta2', 'apps/v1beta2 was removed in release 1.16'],
    [`rbac.authorization.${S}/v1beta1`, `release 1.22 (ClusterRoleBinding: use rbac.authorization.${S}/v1 ClusterRoleBinding`],
    [`storage.${S}/v1beta1/csistoragecapacities`, `storage.${S}/v1beta1/csistoragecapacities was removed in release 1.27 (CSIStorageCapacity: use storage.${S}/v1 CSIStorageCapacity)`],
    [`networking.${S}/v1beta1/ingresses`, `networking.${S}/v1beta1/ingresses was removed in release 1.22 (Ingress: use networking.${S}/v1 Ingress)`],
  ];
  for (const [text, want] of cases) assert.ok(startupError(text).includes(want), `${text}: ${startupError(text)}`);
});

test('spec 9.6: versions the reference still serves in 1.31 can be enabled (flowcontrol v1beta3 goes only in 1.32)', () => {
  const texts = [
    `${FLOWCONTROL}/v1beta3=true`,
    `networking.${S}/v1beta1=true`,
    `storage.${S}/v1beta1`,
    `storage.${S}/v1beta1/volumeattributesclasses`,
    `resource.${S}/v1alpha3=true`,
    `admissionregistration.${S}/v1beta1`,
  ];
  for (const text of texts) assert.equal(startupError(text), '', text);
});

test('reference behaviour: precedence is resource key, then group/version key, then api/* keys, then defaults', () => {
  // Keeps what the server relies on (see the next test) when everything else is turned off.
  const keep = `,api/v1/namespaces,rbac.authorization.${S}/v1`;
  const cases: [string, [string, string, string], boolean][] = [
    ['', ['batch', 'v1', 'jobs'], true],
    ['batch/v1=false', ['batch', 'v1', 'jobs'], false],
    ['batch/v1=false', ['apps', 'v1', 'deployments'], true],
    ['batch/v1=false,batch/v1/jobs=true', ['batch', 'v1', 'jobs'], true],
    ['batch/v1=false,batch/v1/jobs=true', ['batch', 'v1', 'cronjobs'], false],
    ['batch/v1/jobs=true,batch/v1=false', ['batch', 'v1', 'jobs'], true],
    ['batch/v1/cronjobs=false', ['batch', 'v1', 'cronjobs'], false],
    ['batch/v1/cronjobs=false', ['batch', 'v1', 'jobs'], true],
    [`api/all=false${keep}`, ['batch', 'v1', 'jobs'], false],
    [`api/all=false,batch/v1${keep}`, ['batch', 'v1', 'jobs'], true],
    [`batch/v1,api/all=false${keep}`, ['batch', 'v1', 'jobs'], true],
    ['api/all=false,api/ga=true', ['batch', 'v1', 'jobs'], true],
    ['api/ga=true,api/all=false', ['batch', 'v1', 'jobs'], true],
    ['api/all=false,api/ga=true', [FLOWCONTROL, 'v1beta3', 'flowschemas'], false],
    ['api/all=true', [`resource.${S}`, 'v1alpha3', 'resourceclaims'], true],
    ['api/all=true,api/alpha=false', [`resource.${S}`, 'v1alpha3', 'resourceclaims'], false],
    ['api/alpha=true', [`resource.${S}`, 'v1alpha3', 'resourceclaims'], true],
    ['api/alpha=true', [`networking.${S}`, 'v1beta1', 'servicecidrs'], false],
    ['api/beta=true', [`networking.${S}`, 'v1beta1', 'servicecidrs'], true],
    ['api/beta=false', [FLOWCONTROL, 'v1beta3', 'flowschemas'], false],
    [`api/beta=false,${FLOWCONTROL}/v1beta3`, [FLOWCONTROL, 'v1beta3', 'flowschemas'], true],
    [`resource.${S}/v1alpha3/deviceclasses`, [`resource.${S}`, 'v1alpha3', 'deviceclasses'], true],
    [`resource.${S}/v1alpha3/deviceclasses`, [`resource.${S}`, 'v1alpha3', 'resourceclaims'], false],
    [`v1=false${keep}`, ['', 'v1', 'pods'], false],
    [`v1=false${keep}`, ['', 'v1', 'namespaces'], true],
    [`api/v1=false${keep}`, ['', 'v1', 'pods'], false],
    ['api/v1/componentstatuses=false', ['', 'v1', 'componentstatuses'], false],
    ['api/v1/componentstatuses=false', ['', 'v1', 'pods'], true],
  ];
  for (const [text, [g, v, r], want] of cases) assert.equal(servingFilter(parseRuntimeConfig(text))(g, v, r), want, `${text} -> ${g}/${v}/${r}`);
});

test('reference behaviour (deliberate difference): resources this server relies on cannot be turned off', () => {
  const cases: [string, string][] = [
    ['v1=false', '--runtime-config: v1 namespaces cannot be turned off'],
    ['api/all=false', 'v1 namespaces cannot be turned off'],
    ['api/v1/namespaces=false', 'v1 namespaces cannot be turned off'],
    [`rbac.authorization.${S}/v1=false`, `rbac.authorization.${S}/v1 roles cannot be turned off`],
    [`api/all=false,v1,rbac.authorization.${S}/v1`, ''],
  ];
  for (const [text, want] of cases) {
    const got = startupError(text);
    assert.ok(want === '' ? got === '' : got.includes(want), `${text}: ${got}`);
  }
});
