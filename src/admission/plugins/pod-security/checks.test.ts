import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APPARMOR_CONTAINER_ANNOTATION_PREFIX, SECCOMP_POD_ANNOTATION } from '../../../api/naming.js';
import { evaluatePod, forbiddenDetail, forbiddenReason, type Level } from './checks.js';

type Rec = Record<string, unknown>;
/** A pod that meets restricted: non-root, RuntimeDefault seccomp, no escalation, ALL capabilities dropped. */
const RESTRICTED_CONTAINER = { name: 'c', image: 'i', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } };
const restrictedSpec = (over: Rec = {}, container: Rec = {}): Rec => ({
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [{ ...RESTRICTED_CONTAINER, ...container, securityContext: { ...RESTRICTED_CONTAINER.securityContext, ...((container.securityContext as Rec) ?? {}) } }],
  ...over,
});
const detail = (level: Level, spec: Rec, meta: Rec = {}, minor?: number) => forbiddenDetail(evaluatePod(level, minor, meta, spec));

test('reference behaviour (PodSecurity): baseline checks of 1.31 with their reasons and details', () => {
  const c = (sc: Rec, extra: Rec = {}) => ({ containers: [{ name: 'c', image: 'i', securityContext: sc, ...extra }] });
  const table: [string, Rec, Rec, string][] = [
    ['a plain pod', { containers: [{ name: 'c', image: 'i' }] }, {}, ''],
    ['host namespaces', { hostNetwork: true, hostPID: true, hostIPC: true, containers: [] }, {}, 'host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)'],
    ['privileged', { initContainers: [{ name: 'i', securityContext: { privileged: true } }], containers: [{ name: 'c', securityContext: { privileged: true } }] }, {}, 'privileged (containers "i", "c" must not set securityContext.privileged=true)'],
    ['capabilities', c({ capabilities: { add: ['NET_RAW', 'CHOWN', 'NET_ADMIN'] } }), {}, 'non-default capabilities (container "c" must not include "NET_ADMIN", "NET_RAW" in securityContext.capabilities.add)'],
    ['hostPath volumes', { containers: [], volumes: [{ name: 'a', hostPath: { path: '/' } }, { name: 'b', emptyDir: {} }, { name: 'd', hostPath: { path: '/x' } }] }, {}, 'hostPath volumes (volumes "a", "d")'],
    ['host ports', { containers: [{ name: 'a', ports: [{ containerPort: 1, hostPort: 81 }] }, { name: 'b', ports: [{ containerPort: 2, hostPort: 80 }] }] }, {}, 'hostPort (containers "a", "b" use hostPorts 80, 81)'],
    ['one host port', { containers: [{ name: 'a', ports: [{ containerPort: 1, hostPort: 8080 }, { containerPort: 2 }] }] }, {}, 'hostPort (container "a" uses hostPort 8080)'],
    ['AppArmor field', { securityContext: { appArmorProfile: { type: 'Unconfined' } }, containers: [] }, {}, 'forbidden AppArmor profile (pod must not set AppArmor profile type to "Unconfined")'],
    ['AppArmor annotation', { containers: [{ name: 'c' }] }, { annotations: { [`${APPARMOR_CONTAINER_ANNOTATION_PREFIX}c`]: 'unconfined' } }, `forbidden AppArmor profile (annotation must not set AppArmor profile type to "${APPARMOR_CONTAINER_ANNOTATION_PREFIX}c=\\"unconfined\\"")`],
    ['AppArmor allowed', { containers: [{ name: 'c', securityContext: { appArmorProfile: { type: 'Localhost' } } }] }, { annotations: { [`${APPARMOR_CONTAINER_ANNOTATION_PREFIX}c`]: 'localhost/p' } }, ''],
    ['SELinux', { securityContext: { seLinuxOptions: { type: 'spc_t', user: 'u' } }, containers: [{ name: 'c', securityContext: { seLinuxOptions: { role: 'r' } } }] }, {}, 'seLinuxOptions (pod and container "c" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)'],
    ['SELinux container_engine_t is allowed in 1.31', c({ seLinuxOptions: { type: 'container_engine_t' } }), {}, ''],
    ['procMount', c({ procMount: 'Unmasked' }), {}, 'procMount (container "c" must not set securityContext.procMount to "Unmasked")'],
    ['seccomp Unconfined', { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [] }, {}, 'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")'],
    ['sysctls', { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }, { name: 'net.ipv4.tcp_keepalive_time', value: '1' }] }, containers: [] }, {}, 'forbidden sysctls (kernel.msgmax)'],
    ['hostProcess', { securityContext: { windowsOptions: { hostProcess: true } }, containers: [] }, {}, 'hostProcess (pod must not set securityContext.windowsOptions.hostProcess=true)'],
  ];
  for (const [what, spec, meta, want] of table) assert.equal(detail('baseline', spec, meta), want, what);
});

test('reference behaviour (PodSecurity): restricted checks of 1.31, after the baseline ones, replacing their baseline counterparts', () => {
  const table: [string, Rec, string][] = [
    ['a restricted pod', restrictedSpec(), ''],
    ['NET_BIND_SERVICE may be added', restrictedSpec({}, { securityContext: { capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } } }), ''],
    ['a plain pod', { containers: [{ name: 'c', image: 'i' }] },
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'],
    ['capabilities added', restrictedSpec({}, { securityContext: { capabilities: { drop: ['ALL'], add: ['CHOWN'] } } }), 'unrestricted capabilities (container "c" must not include "CHOWN" in securityContext.capabilities.add)'],
    ['volume types', restrictedSpec({ volumes: [{ name: 'h', hostPath: { path: '/' } }, { name: 'n', nfs: {} }, { name: 'ok', secret: {} }] }), 'restricted volume types (volumes "h", "n" use restricted volume types "hostPath", "nfs")'],
    ['runAsNonRoot false', restrictedSpec({ securityContext: { runAsNonRoot: false, seccompProfile: { type: 'Localhost' } } }), 'runAsNonRoot != true (pod must not set securityContext.runAsNonRoot=false)'],
    ['runAsUser 0', restrictedSpec({}, { securityContext: { runAsUser: 0 } }), 'runAsUser=0 (container "c" must not set runAsUser=0)'],
    ['host network and a privileged container', restrictedSpec({ hostNetwork: true }, { securityContext: { privileged: true } }), 'host namespaces (hostNetwork=true), privileged (container "c" must not set securityContext.privileged=true)'],
    ['windows pods skip escalation, capabilities and seccomp', { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'c' }] }, ''],
  ];
  for (const [what, spec, want] of table) assert.equal(detail('restricted', spec), want, what);
});

test('reference behaviour (PodSecurity): versions pick the checks of their time; privileged checks nothing; newer than 1.31 is latest', () => {
  const plain = { containers: [{ name: 'c', image: 'i', securityContext: { runAsUser: 0, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }], securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } };
  assert.equal(detail('restricted', plain, {}, 22), '', 'runAsUser is checked from 1.23');
  assert.equal(detail('restricted', plain, {}, 23), 'runAsUser=0 (container "c" must not set runAsUser=0)');
  assert.equal(detail('restricted', plain, {}, 40), detail('restricted', plain, {}, undefined));
  const engine = { containers: [{ name: 'c', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } }] };
  assert.equal(detail('baseline', engine, {}, 30), 'seLinuxOptions (container "c" set forbidden securityContext.seLinuxOptions: type "container_engine_t")');
  const keepalive = { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_keepalive_time' }] }, containers: [] };
  assert.equal(detail('baseline', keepalive, {}, 28), 'forbidden sysctls (net.ipv4.tcp_keepalive_time)');
  assert.equal(detail('baseline', { containers: [] }, { annotations: { [SECCOMP_POD_ANNOTATION]: 'unconfined' } }, 18), `seccompProfile (forbidden annotation ${SECCOMP_POD_ANNOTATION}="unconfined")`);
  assert.equal(detail('privileged', { hostNetwork: true, containers: [{ name: 'c', securityContext: { privileged: true } }] }), '');
  assert.equal(forbiddenReason(evaluatePod('baseline', undefined, {}, { hostPID: true, containers: [{ name: 'c', securityContext: { privileged: true } }] })), 'host namespaces, privileged');
});
