import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GROUP_SUFFIX } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { referenceType } from '../reference.js';
import { settleAvailability, validateAPIService } from './apiservice.js';
import { apiServicesFor, builtinPriority } from './bootstrap.js';
import { apiregistrationBootstrap, apiServices } from './index.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
type Spec = Record<string, any>;
const apiService = (spec: Spec, name = `v1.${spec.group}`): ApiObject => ({ kind: 'APIService', metadata: { name }, spec });
const remote = (extra: Spec = {}): Spec => ({
  group: 'metrics.example.com',
  version: 'v1',
  groupPriorityMinimum: 100,
  versionPriority: 10,
  service: { namespace: 'monitoring', name: 'metrics', port: 443 },
  ...extra,
});

test('reference behaviour, APIService: local and remote services are valid', () => {
  assert.deepEqual(validateAPIService(apiService(remote())), []);
  assert.deepEqual(validateAPIService(apiService({ group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }, 'v1.')), []);
  assert.deepEqual(validateAPIService(apiService(remote({ insecureSkipTLSVerify: true }))), []);
});

test('reference behaviour, APIService: each broken rule is reported at its field', () => {
  const cases: [string, ApiObject, string[]][] = [
    ['name not version.group', apiService(remote(), 'metrics'), ['FieldValueInvalid metadata.name']],
    ['empty group for v2', apiService({ ...remote(), group: '', version: 'v2' }, 'v2.'), ['FieldValueRequired spec.group']],
    ['bad group', apiService(remote({ group: 'Bad_Group' })), ['FieldValueInvalid spec.group']],
    ['bad version', apiService(remote({ version: '1v' }), '1v.metrics.example.com'), ['FieldValueInvalid spec.version']],
    ['group priority 0', apiService(remote({ groupPriorityMinimum: 0 })), ['FieldValueInvalid spec.groupPriorityMinimum']],
    ['group priority 20001', apiService(remote({ groupPriorityMinimum: 20001 })), ['FieldValueInvalid spec.groupPriorityMinimum']],
    ['version priority 1001', apiService(remote({ versionPriority: 1001 })), ['FieldValueInvalid spec.versionPriority']],
    ['no version priority', apiService(remote({ versionPriority: undefined })), ['FieldValueInvalid spec.versionPriority']],
    ['service port', apiService(remote({ service: { namespace: 'm', name: 'x', port: 0 } })), ['FieldValueInvalid spec.service.port']],
    ['service without namespace and name', apiService(remote({ service: {} })), ['FieldValueRequired spec.service.namespace', 'FieldValueRequired spec.service.name']],
    ['skip verify with a CA bundle', apiService(remote({ insecureSkipTLSVerify: true, caBundle: 'Y2E=' })), ['FieldValueInvalid spec.insecureSkipTLSVerify']],
    ['local with a CA bundle', apiService(remote({ service: undefined, caBundle: 'Y2E=' })), ['FieldValueInvalid spec.caBundle']],
    ['local skipping verification', apiService(remote({ service: undefined, insecureSkipTLSVerify: true })), ['FieldValueInvalid spec.insecureSkipTLSVerify']],
    ['condition status', { ...apiService(remote()), status: { conditions: [{ type: 'Available', status: 'Maybe' }] } }, ['FieldValueNotSupported status.conditions[0].status']],
    ['wrong JSON type', apiService(remote({ versionPriority: 'high' })), ['FieldValueTypeInvalid spec.versionPriority', 'FieldValueInvalid spec.versionPriority']],
  ];
  for (const [what, o, want] of cases) assert.deepEqual(summary(validateAPIService(o)), want, what);
  assert.match(validateAPIService(apiService(remote(), 'metrics'))[0]?.message ?? '', /must be `spec.version\+"."\+spec.group`: "v1.metrics.example.com"/);
});

test('reference behaviour, APIService: a local one is Available=True/Local on every write; a remote one loses that verdict', () => {
  const local = apiService({ group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
  apiServices.strategy.prepareForCreate?.(local);
  const conditions = (local.status as Spec).conditions;
  assert.equal(conditions.length, 1);
  assert.deepEqual({ ...conditions[0], lastTransitionTime: 'x' }, { type: 'Available', status: 'True', lastTransitionTime: 'x', reason: 'Local', message: 'Local APIServices are always available' });
  const kept = structuredClone(local);
  settleAvailability(kept);
  assert.deepEqual(kept.status, local.status, 'an already available local service keeps its transition time');
  const falsified = { ...structuredClone(local), status: { conditions: [{ type: 'Available', status: 'False', reason: 'Nope' }] } };
  apiServices.strategy.prepareForStatusUpdate?.(falsified, structuredClone(local));
  assert.equal((falsified.status as Spec).conditions[0].status, 'True');
  const moved: ApiObject = { ...structuredClone(local), spec: remote() };
  apiServices.strategy.prepareForUpdate?.(moved, structuredClone(local));
  assert.deepEqual(moved.status, { conditions: [] });
  const created = apiService(remote({ service: { namespace: 'm', name: 'x' } }));
  apiServices.strategy.prepareForCreate?.(created);
  assert.equal(created.status, undefined);
  assert.equal((created.spec as Spec).service.port, 443, 'the service port defaults to 443');
});

test('reference behaviour, APIService: SERVICE is Local or ns/name; AVAILABLE is True, "<status> (<reason>)" or Unknown', () => {
  assert.deepEqual(apiServices.tableColumns.map((c) => c.name), ['Service', 'Available']);
  const row = (o: ApiObject) => apiServices.tableColumns.map((c) => c.value(o));
  assert.deepEqual(row({ kind: 'APIService', spec: {}, status: { conditions: [{ type: 'Available', status: 'True', reason: 'Local' }] } }), ['Local', 'True']);
  assert.deepEqual(row({ kind: 'APIService', spec: remote(), status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] } }), ['monitoring/metrics', 'False (MissingEndpoints)']);
  assert.deepEqual(row({ kind: 'APIService', spec: remote() }), ['monitoring/metrics', 'Unknown']);
});

test('reference behaviour, APIService bootstrap: one local APIService per served group/version with the built-in priorities', () => {
  const served = [
    referenceType('', 'v1', 'pods'),
    referenceType('', 'v1', 'configmaps'),
    referenceType('apps', 'v1', 'deployments'),
    referenceType(`flowcontrol.apiserver.${GROUP_SUFFIX}`, 'v1beta3', 'flowschemas'),
    referenceType(`apiregistration.${GROUP_SUFFIX}`, 'v1', 'apiservices'),
  ];
  const objs = apiregistrationBootstrap(served);
  assert.deepEqual(objs.map((o) => o.metadata?.name), ['v1.', 'v1.apps', `v1beta3.flowcontrol.apiserver.${GROUP_SUFFIX}`, `v1.apiregistration.${GROUP_SUFFIX}`]);
  assert.deepEqual(objs[0]?.spec, { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
  assert.deepEqual(objs[2]?.spec, { group: `flowcontrol.apiserver.${GROUP_SUFFIX}`, version: 'v1beta3', groupPriorityMinimum: 16100, versionPriority: 18 });
  for (const o of objs) {
    assert.equal((o.spec as Spec).service, undefined);
    assert.deepEqual(validateAPIService(o), [], String(o.metadata?.name));
  }
  assert.deepEqual(apiServicesFor(served.slice(0, 3)), [], 'nothing unless APIServices are served');
  assert.equal(builtinPriority('example.com', 'v1'), undefined, 'unknown groups get no APIService');
  assert.deepEqual(builtinPriority('autoscaling', 'v2'), { groupPriorityMinimum: 17500, versionPriority: 30 });
});
