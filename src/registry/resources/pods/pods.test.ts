import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { pods } from './index.js';
import { defaultPullPolicy } from './defaults.js';
import { podQOSClass } from './quantity.js';

const s = pods.strategy;
type Obj = Record<string, unknown>;
const pod = (spec: Obj = { containers: [{ name: 'app', image: 'nginx:1.27' }] }, extra: ApiObject = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default' },
  spec,
  ...extra,
});
const created = (spec?: Obj) => {
  const o = pod(spec);
  s.prepareForCreate?.(o);
  return o;
};
const specOf = (o: ApiObject) => o.spec as Obj;
const containerOf = (o: ApiObject, i = 0) => (specOf(o).containers as Obj[])[i] as Obj;
const cell = (name: string, o: ApiObject) => pods.tableColumns.find((c) => c.name === name)?.value(o);

describe('pods: type and defaults', () => {
  it('API reference: identity, scope, status subresource', () => {
    assert.equal(pods.kind, 'Pod');
    assert.equal(pods.listKind, 'PodList');
    assert.equal(pods.singular, 'pod');
    assert.deepEqual(pods.shortNames, ['po']);
    assert.equal(pods.namespaced, true);
    assert.deepEqual(pods.subresources, ['status']);
    assert.equal(pods.storageKey, 'core/pods');
    assert.equal(s.nameRule, 'subdomain');
    assert.equal(s.allowCreateOnUpdate, false);
    assert.equal(s.allowUnconditionalUpdate, true);
  });

  it('API reference: schema has the merge keys kubectl and apply rely on', () => {
    const spec = pods.schema.properties?.spec?.properties ?? {};
    assert.deepEqual(spec.containers?.['x-kubernetes-list-map-keys'], ['name']);
    assert.deepEqual(spec.volumes?.['x-kubernetes-list-map-keys'], ['name']);
    const container = spec.containers?.items?.properties ?? {};
    assert.equal(container.ports?.['x-kubernetes-patch-merge-key'], 'containerPort');
    assert.equal(container.env?.['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(container.volumeMounts?.['x-kubernetes-patch-merge-key'], 'mountPath');
    assert.deepEqual(pods.schema.properties?.spec?.required, ['containers']);
    assert.ok(pods.schema.properties?.status?.properties?.containerStatuses);
    assert.ok(pods.schema.properties?.metadata);
  });

  it('API reference: create applies the pod spec defaults', () => {
    const o = created();
    const spec = specOf(o);
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
    assert.equal(spec.terminationGracePeriodSeconds, 30);
    assert.equal(spec.schedulerName, 'default-scheduler');
    assert.equal(spec.serviceAccountName, undefined, "the account is the ServiceAccount admission plugin's (admission/plugins/service-account.ts)");
    assert.equal(spec.serviceAccount, undefined);
    assert.deepEqual(spec.securityContext, {});
    assert.equal(spec.enableServiceLinks, true);
    assert.equal(spec.priority, undefined, 'priority is the Priority admission plugin\'s (admission/plugins/priority.ts)');
    assert.equal(spec.preemptionPolicy, undefined);
    assert.deepEqual(s.validate(o), []);
  });

  it('API reference: explicit values are kept; serviceAccount mirrors serviceAccountName', () => {
    const o = created({ containers: [{ name: 'a', image: 'x' }], restartPolicy: 'Never', serviceAccount: 'robot', priorityClassName: 'system-node-critical' });
    assert.equal(specOf(o).restartPolicy, 'Never');
    assert.equal(specOf(o).serviceAccountName, 'robot');
    assert.equal(specOf(o).priorityClassName, 'system-node-critical');
  });

  it('API reference: container defaults', () => {
    const o = created({ containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }], livenessProbe: { httpGet: { port: 80 } } }] });
    const c = containerOf(o);
    assert.equal(c.imagePullPolicy, 'IfNotPresent');
    assert.equal(c.terminationMessagePath, '/dev/termination-log');
    assert.equal(c.terminationMessagePolicy, 'File');
    assert.deepEqual(c.resources, {});
    assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
    assert.deepEqual(c.livenessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  });

  it('API reference: imagePullPolicy is Always for latest or untagged images', () => {
    assert.equal(defaultPullPolicy('nginx'), 'Always');
    assert.equal(defaultPullPolicy('nginx:latest'), 'Always');
    assert.equal(defaultPullPolicy('registry:5000/team/nginx'), 'Always');
    assert.equal(defaultPullPolicy('registry:5000/team/nginx:1.0'), 'IfNotPresent');
    assert.equal(defaultPullPolicy('nginx@sha256:abcd'), 'IfNotPresent');
    const o = created({ containers: [{ name: 'a', image: 'busybox', imagePullPolicy: 'Never' }, { name: 'b', image: 'busybox' }] });
    assert.equal(containerOf(o, 0).imagePullPolicy, 'Never');
    assert.equal(containerOf(o, 1).imagePullPolicy, 'Always');
  });

  it('API reference: init containers, volumes and host networking get defaults', () => {
    const o = created({
      hostNetwork: true,
      initContainers: [{ name: 'init', image: 'busybox:1' }],
      containers: [{ name: 'app', image: 'x:1', ports: [{ containerPort: 8080 }] }],
      volumes: [{ name: 'scratch' }, { name: 'cfg', configMap: { name: 'c' } }],
    });
    const spec = specOf(o);
    assert.equal((spec.initContainers as Obj[])[0]?.terminationMessagePolicy, 'File');
    assert.deepEqual(spec.volumes, [{ name: 'scratch', emptyDir: {} }, { name: 'cfg', configMap: { name: 'c', defaultMode: 420 } }]);
    assert.deepEqual(containerOf(o).ports, [{ containerPort: 8080, protocol: 'TCP', hostPort: 8080 }]);
  });

  it('API reference: create resets status to Pending with the QoS class', () => {
    const o = pod(undefined, { status: { phase: 'Running', podIP: '1.2.3.4' } });
    s.prepareForCreate?.(o);
    assert.deepEqual(o.status, { phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('API reference: QoS class from requests and limits', () => {
    const withRes = (...res: Obj[]) => ({ containers: res.map((resources, i) => ({ name: `c${i}`, image: 'x', resources })) });
    assert.equal(podQOSClass(withRes({})), 'BestEffort');
    assert.equal(podQOSClass(withRes({ requests: { cpu: '100m' } })), 'Burstable');
    assert.equal(podQOSClass(withRes({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1000m', memory: '1024Mi' } })), 'Guaranteed');
    assert.equal(podQOSClass(withRes({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } })), 'Burstable');
    assert.equal(podQOSClass(withRes({ limits: { cpu: '1', memory: '1Gi' } }, {})), 'Burstable');
    // Requests default from limits, so limits alone make a Guaranteed pod.
    const o = created(withRes({ limits: { cpu: '1', memory: '1Gi' } }));
    assert.deepEqual((containerOf(o).resources as Obj).requests, { cpu: '1', memory: '1Gi' });
    assert.equal((o.status as Obj).qosClass, 'Guaranteed');
  });

  it('API reference: update keeps the stored status and applies defaults to the new spec', () => {
    const old = created();
    old.status = { phase: 'Running', podIP: '10.0.0.5' };
    const o = pod(undefined, { status: { phase: 'Failed' } });
    s.prepareForUpdate?.(o, old);
    assert.deepEqual(o.status, { phase: 'Running', podIP: '10.0.0.5' });
    assert.deepEqual(o.spec, old.spec);
    assert.deepEqual(s.validateUpdate?.(o, old), []);
  });

  it('API reference: a status update keeps the stored spec, owner references and QoS class', () => {
    const old = created();
    old.metadata = { ...old.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: '1' }] };
    const o = pod({ containers: [] }, { status: { phase: 'Running' } });
    o.metadata = { ...o.metadata, labels: { new: 'label' } };
    s.prepareForStatusUpdate?.(o, old);
    assert.deepEqual(o.spec, old.spec);
    assert.deepEqual(o.status, { phase: 'Running', qosClass: 'BestEffort' });
    assert.deepEqual(o.metadata?.ownerReferences, old.metadata.ownerReferences);
    assert.deepEqual(o.metadata?.labels, { new: 'label' });
  });
});

describe('pods: table and field selectors', () => {
  const running = (statuses: Obj[], extra: Obj = {}, spec?: Obj) =>
    pod(spec ?? { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x' }], nodeName: 'node-1' }, {
      status: { phase: 'Running', podIP: '10.1.2.3', containerStatuses: statuses, ...extra },
    });
  const ok = (name: string, restartCount = 0): Obj => ({ name, ready: true, restartCount, state: { running: { startedAt: '2024-01-01T00:00:00Z' } } });

  it('API reference: columns and their order (Name and Age are added by the store)', () => {
    assert.deepEqual(
      pods.tableColumns.map((c) => [c.name, c.priority]),
      [['Ready', 0], ['Status', 0], ['Restarts', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1]],
    );
  });

  it('API reference: Ready, Status, Restarts, IP and Node of a running pod', () => {
    const o = running([ok('a', 2), { name: 'b', ready: false, restartCount: 1, state: { running: {} } }]);
    assert.equal(cell('Ready', o), '1/2');
    assert.equal(cell('Status', o), 'Running');
    assert.equal(cell('Restarts', o), 3);
    assert.equal(cell('IP', o), '10.1.2.3');
    assert.equal(cell('Node', o), 'node-1');
    assert.equal(cell('Nominated Node', o), '<none>');
    assert.equal(cell('Readiness Gates', o), '<none>');
  });

  it('API reference: a new pod shows 0/N Pending and <none> for IP and Node', () => {
    const o = created();
    assert.equal(cell('Ready', o), '0/1');
    assert.equal(cell('Status', o), 'Pending');
    assert.equal(cell('Restarts', o), 0);
    assert.equal(cell('IP', o), '<none>');
    assert.equal(cell('Node', o), '<none>');
  });

  it('API reference: Status shows waiting and terminated container reasons', () => {
    assert.equal(cell('Status', running([ok('a'), { name: 'b', state: { waiting: { reason: 'CrashLoopBackOff' } } }])), 'CrashLoopBackOff');
    // A finished container next to a running one: Running when the pod is Ready, else NotReady.
    const done = { name: 'b', state: { terminated: { exitCode: 0, reason: 'Completed' } } };
    assert.equal(cell('Status', running([ok('a'), done], { conditions: [{ type: 'Ready', status: 'True' }] })), 'Running');
    assert.equal(cell('Status', running([ok('a'), done])), 'NotReady');
    assert.equal(cell('Status', running([done], { phase: 'Succeeded' })), 'Completed');
    assert.equal(cell('Status', running([{ name: 'a', state: { terminated: { exitCode: 2 } } }])), 'ExitCode:2');
    assert.equal(cell('Status', running([{ name: 'a', state: { terminated: { exitCode: 0, signal: 9 } } }])), 'Signal:9');
    assert.equal(cell('Status', running([], { reason: 'Evicted', phase: 'Failed' })), 'Evicted');
  });

  it('API reference: Status shows init container progress', () => {
    const spec = { initContainers: [{ name: 'i1', image: 'x' }, { name: 'i2', image: 'x' }], containers: [{ name: 'a', image: 'x' }] };
    const init = (statuses: Obj[]) => running([], { phase: 'Pending', initContainerStatuses: statuses }, spec);
    assert.equal(cell('Status', init([{ name: 'i1', state: { terminated: { exitCode: 0 } } }, { name: 'i2', state: { running: {} } }])), 'Init:1/2');
    assert.equal(cell('Status', init([{ name: 'i1', state: { waiting: { reason: 'ImagePullBackOff' } } }])), 'Init:ImagePullBackOff');
    assert.equal(cell('Status', init([{ name: 'i1', state: { terminated: { exitCode: 1, reason: 'Error' } } }])), 'Init:Error');
    assert.equal(cell('Status', init([{ name: 'i1', state: { terminated: { exitCode: 3 } } }])), 'Init:ExitCode:3');
  });

  it('spec 3.1: a pod with deletionTimestamp shows Terminating', () => {
    const o = running([ok('a'), ok('b')]);
    o.metadata = { ...o.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' };
    assert.equal(cell('Status', o), 'Terminating');
    (o.status as Obj).phase = 'Succeeded';
    assert.equal(cell('Status', o), 'Succeeded');
  });

  it('API reference: readiness gates count passed conditions', () => {
    const o = running([ok('a')], { conditions: [{ type: 'example.com/gate', status: 'True' }] }, {
      containers: [{ name: 'a', image: 'x' }],
      readinessGates: [{ conditionType: 'example.com/gate' }, { conditionType: 'example.com/other' }],
    });
    assert.equal(cell('Readiness Gates', o), '1/2');
  });

  it('API reference: selectable fields', () => {
    const o = created({ containers: [{ name: 'a', image: 'x' }], nodeName: 'n1', hostNetwork: true });
    (o.status as Obj).podIP = '10.0.0.9';
    assert.deepEqual(pods.selectableFields?.(o), {
      'spec.nodeName': 'n1',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': '',
      'spec.hostNetwork': 'true',
      'status.phase': 'Pending',
      'status.podIP': '10.0.0.9',
      'status.nominatedNodeName': '',
    });
    assert.equal(pods.selectableFields?.(pod())['spec.hostNetwork'], 'false');
  });
});
