import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { pods } from './index.js';
import { isValidPortName } from './ports.js';
import { validatePod } from './validation.js';
import { POD_UPDATE_FORBIDDEN } from './update.js';

const s = pods.strategy;
type Obj = Record<string, unknown>;
const app = (extra: Obj = {}): Obj => ({ name: 'app', image: 'nginx:1.27', ...extra });
/** A created (defaulted) pod with `spec` merged over a one-container spec. */
const created = (spec: Obj = {}): ApiObject => {
  const o: ApiObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [app()], ...spec } };
  s.prepareForCreate?.(o);
  return o;
};
const errs = (spec: Obj) => s.validate(created(spec));
const pairs = (e: FieldError[]) => e.map((x) => [x.field, x.type]);

describe('pods: validation (API reference)', () => {
  it('API reference: a minimal pod is valid', () => {
    assert.deepEqual(errs({}), []);
  });

  it('API reference: at least one container is required', () => {
    assert.deepEqual(pairs(errs({ containers: [] })), [['spec.containers', 'FieldValueRequired']]);
    assert.equal(errs({ containers: [] })[0]?.message, 'Required value');
    const noSpec = s.validate({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } });
    assert.deepEqual(pairs(noSpec), [['spec', 'FieldValueRequired']]);
  });

  it('API reference: container names are required, DNS labels and unique across init and app containers', () => {
    assert.deepEqual(pairs(errs({ containers: [app({ name: '' })] })), [['spec.containers[0].name', 'FieldValueRequired']]);
    assert.deepEqual(pairs(errs({ containers: [app({ name: 'Bad_Name' })] })), [['spec.containers[0].name', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ containers: [app(), app()] })), [['spec.containers[1].name', 'FieldValueDuplicate']]);
    assert.deepEqual(pairs(errs({ initContainers: [app()], containers: [app()] })), [['spec.containers[0].name', 'FieldValueDuplicate']]);
  });

  it('API reference: image is required and may not have surrounding whitespace', () => {
    assert.deepEqual(pairs(errs({ containers: [{ name: 'a' }] })), [['spec.containers[0].image', 'FieldValueRequired']]);
    assert.deepEqual(pairs(errs({ initContainers: [{ name: 'i' }] })), [['spec.initContainers[0].image', 'FieldValueRequired']]);
    assert.deepEqual(pairs(errs({ containers: [app({ image: ' nginx' })] })), [['spec.containers[0].image', 'FieldValueInvalid']]);
  });

  it('API reference: container ports are 1..65535 with a supported protocol and unique names', () => {
    assert.deepEqual(errs({ containers: [app({ ports: [{ containerPort: 80, name: 'http' }, { containerPort: 53, protocol: 'UDP', hostPort: 53 }] })] }), []);
    assert.deepEqual(pairs(errs({ containers: [app({ ports: [{ containerPort: 70000 }] })] })), [['spec.containers[0].ports[0].containerPort', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ containers: [app({ ports: [{ name: 'x' }] })] })), [['spec.containers[0].ports[0].containerPort', 'FieldValueRequired']]);
    assert.deepEqual(pairs(errs({ containers: [app({ ports: [{ containerPort: 80, hostPort: -1 }] })] })), [['spec.containers[0].ports[0].hostPort', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ containers: [app({ ports: [{ containerPort: 80, protocol: 'HTTP' }] })] })), [['spec.containers[0].ports[0].protocol', 'FieldValueNotSupported']]);
    assert.deepEqual(pairs(errs({ containers: [app({ ports: [{ containerPort: 80, name: 'web' }, { containerPort: 81, name: 'web' }] })] })), [
      ['spec.containers[0].ports[1].name', 'FieldValueDuplicate'],
    ]);
    assert.deepEqual(pairs(errs({ containers: [app({ ports: [{ containerPort: 80, name: 'Web_Port' }] })] })), [['spec.containers[0].ports[0].name', 'FieldValueInvalid']]);
  });

  it('API reference: port names follow IANA_SVC_NAME', () => {
    assert.deepEqual(isValidPortName('http-alt'), []);
    assert.deepEqual(isValidPortName('8080'), ['must contain at least one letter (a-z)']);
    assert.deepEqual(isValidPortName('a--b'), ['must not contain consecutive hyphens']);
    assert.deepEqual(isValidPortName('-a'), ['must not begin or end with a hyphen']);
    assert.deepEqual(isValidPortName('abcdefghijklmnop'), ['must be no more than 15 characters']);
  });

  it('API reference: with host networking the host port must equal the container port', () => {
    assert.deepEqual(pairs(errs({ hostNetwork: true, containers: [app({ ports: [{ containerPort: 80, hostPort: 81 }] })] })), [
      ['spec.containers[0].ports[0].containerPort', 'FieldValueInvalid'],
    ]);
  });

  it('API reference: restartPolicy, dnsPolicy and preemptionPolicy values', () => {
    for (const p of ['Always', 'OnFailure', 'Never']) assert.deepEqual(errs({ restartPolicy: p }), []);
    assert.deepEqual(pairs(errs({ restartPolicy: 'Sometimes' })), [['spec.restartPolicy', 'FieldValueNotSupported']]);
    assert.match(errs({ restartPolicy: 'Sometimes' })[0]?.message ?? '', /supported values: "Always", "OnFailure", "Never"/);
    for (const p of ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default']) assert.deepEqual(errs({ dnsPolicy: p }), []);
    assert.deepEqual(pairs(errs({ dnsPolicy: 'Google' })), [['spec.dnsPolicy', 'FieldValueNotSupported']]);
    assert.deepEqual(pairs(errs({ preemptionPolicy: 'Always' })), [['spec.preemptionPolicy', 'FieldValueNotSupported']]);
  });

  it('API reference: dnsPolicy None needs dnsConfig with nameservers', () => {
    assert.deepEqual(pairs(errs({ dnsPolicy: 'None' })), [['spec.dnsConfig', 'FieldValueRequired']]);
    assert.deepEqual(pairs(errs({ dnsPolicy: 'None', dnsConfig: {} })), [['spec.dnsConfig.nameservers', 'FieldValueRequired']]);
    assert.deepEqual(errs({ dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'] } }), []);
    assert.deepEqual(pairs(errs({ dnsPolicy: 'None', dnsConfig: { nameservers: ['dns'] } })), [['spec.dnsConfig.nameservers[0]', 'FieldValueInvalid']]);
  });

  it('API reference: env names are C-identifier-like and valueFrom has exactly one source', () => {
    assert.deepEqual(errs({ containers: [app({ env: [{ name: 'MY_VAR', value: '1' }, { name: 'my.env-name' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] })] }), []);
    assert.deepEqual(pairs(errs({ containers: [app({ env: [{ name: '1BAD' }] })] })), [['spec.containers[0].env[0].name', 'FieldValueInvalid']]);
    assert.match(errs({ containers: [app({ env: [{ name: 'A=B' }] })] })[0]?.message ?? '', /a valid environment variable name/);
    assert.deepEqual(pairs(errs({ containers: [app({ env: [{ value: 'x' }] })] })), [['spec.containers[0].env[0].name', 'FieldValueRequired']]);
    assert.deepEqual(pairs(errs({ containers: [app({ env: [{ name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] })] })), [
      ['spec.containers[0].env[0].valueFrom', 'FieldValueInvalid'],
    ]);
    assert.deepEqual(pairs(errs({ containers: [app({ env: [{ name: 'A', valueFrom: {} }] })] })), [['spec.containers[0].env[0].valueFrom', 'FieldValueInvalid']]);
  });

  it('API reference: volume names are unique DNS labels with exactly one source', () => {
    assert.deepEqual(errs({ volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'c' } }] }), []);
    assert.deepEqual(pairs(errs({ volumes: [{ name: 'Data', emptyDir: {} }] })), [['spec.volumes[0].name', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ volumes: [{ name: 'a', emptyDir: {} }, { name: 'a', emptyDir: {} }] })), [['spec.volumes[1].name', 'FieldValueDuplicate']]);
    assert.deepEqual(pairs(errs({ volumes: [{ emptyDir: {} }] })), [['spec.volumes[0].name', 'FieldValueRequired']]);
    assert.deepEqual(pairs(errs({ volumes: [{ name: 'a', emptyDir: {}, hostPath: { path: '/x' } }] })), [['spec.volumes[0].hostPath', 'FieldValueForbidden']]);
    assert.deepEqual(pairs(errs({ volumes: [{ name: 's', secret: {} }] })), [['spec.volumes[0].secret.secretName', 'FieldValueRequired']]);
  });

  it('API reference: volumeMounts must name an existing volume and use unique mount paths', () => {
    const volumes = [{ name: 'data', emptyDir: {} }];
    assert.deepEqual(errs({ volumes, containers: [app({ volumeMounts: [{ name: 'data', mountPath: '/data' }] })] }), []);
    const missing = errs({ volumes, containers: [app({ volumeMounts: [{ name: 'nope', mountPath: '/x' }] })] });
    assert.deepEqual(pairs(missing), [['spec.containers[0].volumeMounts[0].name', 'FieldValueNotFound']]);
    assert.equal(missing[0]?.message, 'Not found: "nope"');
    assert.deepEqual(pairs(errs({ volumes, containers: [app({ volumeMounts: [{ name: 'data' }] })] })), [['spec.containers[0].volumeMounts[0].mountPath', 'FieldValueRequired']]);
    assert.deepEqual(pairs(errs({ volumes, containers: [app({ volumeMounts: [{ name: 'data', mountPath: '/d' }, { name: 'data', mountPath: '/d' }] })] })), [
      ['spec.containers[0].volumeMounts[1].mountPath', 'FieldValueInvalid'],
    ]);
    assert.deepEqual(pairs(errs({ volumes, containers: [app({ volumeMounts: [{ name: 'data', mountPath: '/d', subPath: '../etc' }] })] })), [
      ['spec.containers[0].volumeMounts[0].subPath', 'FieldValueInvalid'],
    ]);
  });

  it('API reference: resource quantities parse and requests do not exceed limits', () => {
    assert.deepEqual(errs({ containers: [app({ resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '1', memory: '1Gi' } } })] }), []);
    assert.deepEqual(pairs(errs({ containers: [app({ resources: { limits: { cpu: 'lots' } } })] })), [
      ['spec.containers[0].resources.limits[cpu]', 'FieldValueInvalid'],
      ['spec.containers[0].resources.requests[cpu]', 'FieldValueInvalid'],
    ]);
    const over = errs({ containers: [app({ resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } })] });
    assert.deepEqual(pairs(over), [['spec.containers[0].resources.requests[cpu]', 'FieldValueInvalid']]);
    assert.match(over[0]?.message ?? '', /must be less than or equal to cpu limit of 1/);
  });

  it('API reference: resources without limits and requests are valid; either one alone is still checked', () => {
    // Straight through validatePod (no defaulting), so requests are not filled from limits.
    const resourcesErrors = (resources: unknown) => pairs(validatePod({ spec: { containers: [app({ resources })], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' } }));
    const table: [unknown, [string, string][]][] = [
      [{}, []],
      [{ limits: null, requests: null }, []],
      [{ limits: null }, []],
      [{ claims: [] }, []],
      [{ requests: { cpu: 'lots' } }, [['spec.containers[0].resources.requests[cpu]', 'FieldValueInvalid']]],
      [{ limits: { memory: '-1' }, requests: null }, [['spec.containers[0].resources.limits[memory]', 'FieldValueInvalid']]],
      [{ limits: 'x' }, [['spec.containers[0].resources.limits', 'FieldValueTypeInvalid']]],
    ];
    for (const [resources, want] of table) assert.deepEqual(resourcesErrors(resources), want, JSON.stringify(resources));
  });

  it('API reference: container restartPolicy only on init containers (sidecars), probes only on sidecars', () => {
    assert.deepEqual(errs({ initContainers: [app({ name: 'side', restartPolicy: 'Always', readinessProbe: { exec: { command: ['true'] } } })] }), []);
    assert.deepEqual(pairs(errs({ initContainers: [app({ name: 'i', restartPolicy: 'Never' })] })), [['spec.initContainers[0].restartPolicy', 'FieldValueNotSupported']]);
    assert.deepEqual(pairs(errs({ initContainers: [app({ name: 'i', livenessProbe: { exec: { command: ['true'] } } })] })), [
      ['spec.initContainers[0].livenessProbe', 'FieldValueForbidden'],
    ]);
    assert.deepEqual(pairs(errs({ containers: [app({ restartPolicy: 'Always' })] })), [['spec.containers[0].restartPolicy', 'FieldValueForbidden']]);
  });

  it('API reference: tolerations', () => {
    assert.deepEqual(errs({ tolerations: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }, { operator: 'Exists' }, { key: 'n', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }] }), []);
    assert.deepEqual(pairs(errs({ tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] })), [['spec.tolerations[0].operator', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ tolerations: [{ value: 'v' }] })), [['spec.tolerations[0].operator', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ tolerations: [{ key: 'k', operator: 'In' }] })), [['spec.tolerations[0].operator', 'FieldValueNotSupported']]);
    assert.deepEqual(pairs(errs({ tolerations: [{ key: 'k', effect: 'Never' }] })), [['spec.tolerations[0].effect', 'FieldValueNotSupported']]);
    assert.deepEqual(pairs(errs({ tolerations: [{ key: 'k', effect: 'NoSchedule', tolerationSeconds: 5 }] })), [['spec.tolerations[0].effect', 'FieldValueInvalid']]);
  });

  it('API reference: names in the spec and activeDeadlineSeconds range', () => {
    assert.deepEqual(pairs(errs({ nodeName: 'Node_1', serviceAccountName: 'Bad!', hostname: 'a.b', subdomain: 'x_y', runtimeClassName: 'Kata_1' })), [
      ['spec.serviceAccountName', 'FieldValueInvalid'],
      ['spec.nodeName', 'FieldValueInvalid'],
      ['spec.runtimeClassName', 'FieldValueInvalid'],
      ['spec.hostname', 'FieldValueInvalid'],
      ['spec.subdomain', 'FieldValueInvalid'],
    ]);
    assert.deepEqual(pairs(errs({ activeDeadlineSeconds: 0 })), [['spec.activeDeadlineSeconds', 'FieldValueInvalid']]);
    assert.deepEqual(errs({ activeDeadlineSeconds: 60 }), []);
    assert.deepEqual(pairs(errs({ nodeSelector: { 'bad key!': 'v' } })), [['spec.nodeSelector', 'FieldValueInvalid']]);
  });
});

describe('pods: update rules (API reference)', () => {
  const update = (old: ApiObject, change: (spec: Obj) => void) => {
    const o = structuredClone(old);
    change(o.spec as Obj);
    s.prepareForUpdate?.(o, old);
    return s.validateUpdate?.(o, old) ?? [];
  };
  const base = () => created({ initContainers: [app({ name: 'init' })], activeDeadlineSeconds: 100, tolerations: [{ key: 'a', operator: 'Exists' }] });
  const containers = (spec: Obj) => spec.containers as Obj[];

  it('API reference: images, activeDeadlineSeconds (down), added tolerations and grace period may change', () => {
    const old = base();
    assert.deepEqual(
      update(old, (spec) => {
        (containers(spec)[0] as Obj).image = 'nginx:1.28';
        ((spec.initContainers as Obj[])[0] as Obj).image = 'busybox:2';
        spec.activeDeadlineSeconds = 50;
        spec.tolerations = [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }];
        spec.terminationGracePeriodSeconds = 5;
      }),
      [],
    );
  });

  it('API reference: any other spec change is forbidden with the reference message', () => {
    const e = update(base(), (spec) => {
      spec.restartPolicy = 'Never';
    });
    assert.deepEqual(pairs(e), [['spec', 'FieldValueForbidden']]);
    assert.ok(e[0]?.message.startsWith(`Forbidden: ${POD_UPDATE_FORBIDDEN}`));
    assert.match(e[0]?.message ?? '', /`spec.containers\[\*\].image`,`spec.initContainers\[\*\].image`,`spec.activeDeadlineSeconds`/);
    assert.match(e[0]?.message ?? '', /spec\.restartPolicy/);
    assert.deepEqual(pairs(update(base(), (spec) => containers(spec).push(app({ name: 'extra' })))), [['spec', 'FieldValueForbidden']]);
    assert.deepEqual(pairs(update(base(), (spec) => void ((containers(spec)[0] as Obj).env = [{ name: 'A', value: '1' }]))), [['spec', 'FieldValueForbidden']]);
  });

  it('API reference: activeDeadlineSeconds may not grow or be removed', () => {
    assert.deepEqual(pairs(update(base(), (spec) => void (spec.activeDeadlineSeconds = 200))), [['spec.activeDeadlineSeconds', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(update(base(), (spec) => delete spec.activeDeadlineSeconds)), [['spec.activeDeadlineSeconds', 'FieldValueInvalid']]);
  });

  it('API reference: existing tolerations may not be removed or changed except tolerationSeconds', () => {
    const e = update(base(), (spec) => void (spec.tolerations = [{ key: 'b', operator: 'Exists' }]));
    assert.deepEqual(pairs(e), [['spec.tolerations', 'FieldValueForbidden']]);
    assert.equal(e[0]?.message, 'Forbidden: existing toleration can not be modified except its tolerationSeconds');
    const old = created({ tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }] });
    assert.deepEqual(update(old, (spec) => void (spec.tolerations = [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }])), []);
  });

  it('API reference: a PUT of the original manifest (without defaults) is not a change', () => {
    const old = created();
    const o: ApiObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [app()] } };
    s.prepareForUpdate?.(o, old);
    assert.deepEqual(s.validateUpdate?.(o, old), []);
  });
});
