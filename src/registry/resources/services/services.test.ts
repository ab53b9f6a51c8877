import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { serviceNetwork, serviceType, services } from './index.js';

const s = services.strategy;
type Obj = Record<string, unknown>;
const svc = (spec: Obj = { selector: { app: 'web' }, ports: [{ port: 80 }] }): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default' },
  spec,
});
const created = (spec?: Obj) => {
  const o = svc(spec);
  s.prepareForCreate?.(o);
  return o;
};
const specOf = (o: ApiObject) => o.spec as Obj;
const portsOf = (o: ApiObject) => specOf(o).ports as Obj[];
const pairs = (e: FieldError[]) => e.map((x) => [x.field, x.type]);
const errs = (spec: Obj) => s.validate(created(spec));
const cell = (name: string, o: ApiObject) => services.tableColumns.find((c) => c.name === name)?.value(o);

describe('services: type and defaults', () => {
  it('API reference: identity and schema keys', () => {
    assert.equal(services.kind, 'Service');
    assert.equal(services.listKind, 'ServiceList');
    assert.deepEqual(services.shortNames, ['svc']);
    assert.equal(services.namespaced, true);
    assert.deepEqual(services.subresources, ['status']);
    assert.equal(services.storageKey, 'core/services');
    assert.equal(s.nameRule, 'label');
    const ports = services.schema.properties?.spec?.properties?.ports;
    assert.equal(ports?.['x-kubernetes-patch-merge-key'], 'port');
    assert.deepEqual(ports?.['x-kubernetes-list-map-keys'], ['port', 'protocol']);
    assert.equal(services.selectableFields, undefined);
  });

  it('API reference: ClusterIP defaults; the cluster IP is left to the allocator', () => {
    const o = created();
    const spec = specOf(o);
    assert.equal(spec.type, 'ClusterIP');
    assert.equal(spec.sessionAffinity, 'None');
    assert.equal(spec.ipFamilyPolicy, 'SingleStack');
    assert.deepEqual(spec.ipFamilies, ['IPv4']);
    assert.equal(spec.internalTrafficPolicy, 'Cluster');
    assert.deepEqual(portsOf(o), [{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    assert.equal(spec.clusterIP, undefined);
    assert.deepEqual(o.status, { loadBalancer: {} });
    assert.deepEqual(s.validate(o), []);
  });

  it('reference behaviour: on an IPv6 service range the default family is IPv6 and IPv4 is refused', () => {
    const v6 = serviceType(serviceNetwork({ clusterIPRange: 'fd00:10::/108' }));
    const o = svc();
    v6.strategy.prepareForCreate?.(o);
    assert.deepEqual(specOf(o).ipFamilies, ['IPv6']);
    assert.deepEqual(v6.strategy.validate(o), []);
    const v4 = svc({ ipFamilies: ['IPv4'], ports: [{ port: 80 }] });
    v6.strategy.prepareForCreate?.(v4);
    assert.deepEqual(
      v6.strategy.validate(v4).map((e) => `${e.field}: ${e.message}`),
      ['spec.ipFamilies[0]: Invalid value: "IPv4": not configured on this cluster'],
    );
  });

  it('API reference: given cluster IP and named target port are kept', () => {
    const o = created({ clusterIP: '10.96.0.10', ports: [{ port: 53, protocol: 'UDP', targetPort: 'dns' }] });
    assert.deepEqual(specOf(o).clusterIPs, ['10.96.0.10']);
    assert.equal(portsOf(o)[0]?.targetPort, 'dns');
    assert.deepEqual(s.validate(o), []);
  });

  it('API reference: NodePort and LoadBalancer defaults keep requested node ports (the rest is the allocator\'s)', () => {
    for (const type of ['NodePort', 'LoadBalancer']) {
      const o = created({ type, ports: [{ name: 'a', port: 80 }, { name: 'b', port: 443, nodePort: 30443 }] });
      assert.equal(portsOf(o)[0]?.nodePort, undefined);
      assert.equal(portsOf(o)[1]?.nodePort, 30443);
      assert.equal(specOf(o).externalTrafficPolicy, 'Cluster');
      assert.deepEqual(s.validate(o), []);
    }
    assert.equal(specOf(created({ type: 'LoadBalancer', ports: [{ port: 80 }] })).allocateLoadBalancerNodePorts, true);
  });

  it('API reference: headless and ExternalName services get no cluster IP', () => {
    const headless = created({ clusterIP: 'None', selector: { app: 'db' } });
    assert.deepEqual(specOf(headless).clusterIPs, ['None']);
    assert.deepEqual(s.validate(headless), []);
    const ext = created({ type: 'ExternalName', externalName: 'db.example.com' });
    assert.equal(specOf(ext).clusterIP, undefined);
    assert.equal(specOf(ext).ipFamilies, undefined);
    assert.deepEqual(s.validate(ext), []);
  });

  it('API reference: ClientIP affinity gets the default timeout', () => {
    const o = created({ sessionAffinity: 'ClientIP', ports: [{ port: 80 }] });
    assert.deepEqual(specOf(o).sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
  });

  it('API reference: update keeps allocated cluster IP, node ports and status', () => {
    const old = created({ type: 'NodePort', clusterIP: '10.0.0.20', ports: [{ name: 'http', port: 80, nodePort: 30080 }] });
    old.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } };
    const o = svc({ type: 'NodePort', ports: [{ name: 'http', port: 80 }] });
    s.prepareForUpdate?.(o, old);
    assert.equal(specOf(o).clusterIP, '10.0.0.20');
    assert.equal(portsOf(o)[0]?.nodePort, portsOf(old)[0]?.nodePort);
    assert.deepEqual(o.status, old.status);
    assert.deepEqual(s.validateUpdate?.(o, old), []);
  });

  it('API reference: changing the type drops values the new type forbids', () => {
    const old = created({ type: 'LoadBalancer', clusterIP: '10.0.0.21', ports: [{ port: 80, nodePort: 30081 }] });
    const toClusterIP = structuredClone(old);
    specOf(toClusterIP).type = 'ClusterIP';
    s.prepareForUpdate?.(toClusterIP, old);
    assert.equal(portsOf(toClusterIP)[0]?.nodePort, undefined);
    assert.equal(specOf(toClusterIP).externalTrafficPolicy, undefined);
    assert.equal(specOf(toClusterIP).allocateLoadBalancerNodePorts, undefined);
    assert.deepEqual(s.validate(toClusterIP), []);
    const toExternal = structuredClone(old);
    Object.assign(specOf(toExternal), { type: 'ExternalName', externalName: 'x.example.com' });
    s.prepareForUpdate?.(toExternal, old);
    assert.equal(specOf(toExternal).clusterIP, undefined);
    assert.deepEqual(s.validate(toExternal), []);
    assert.deepEqual(s.validateUpdate?.(toExternal, old), []);
  });

  it('API reference: a status update keeps the spec', () => {
    const old = created();
    const o = svc({ ports: [] });
    o.status = { loadBalancer: { ingress: [{ ip: '5.6.7.8' }] } };
    s.prepareForStatusUpdate?.(o, old);
    assert.deepEqual(o.spec, old.spec);
    assert.deepEqual(o.status, { loadBalancer: { ingress: [{ ip: '5.6.7.8' }] } });
  });
});

describe('services: validation (API reference)', () => {
  it('API reference: ports are required except for ExternalName and headless services', () => {
    assert.deepEqual(pairs(errs({ selector: { a: 'b' } })), [['spec.ports', 'FieldValueRequired']]);
    assert.deepEqual(errs({ clusterIP: 'None' }), []);
    assert.deepEqual(errs({ type: 'ExternalName', externalName: 'a.b' }), []);
  });

  it('API reference: port numbers, protocols and target ports', () => {
    assert.deepEqual(pairs(errs({ ports: [{ port: 0 }] })), [
      ['spec.ports[0].port', 'FieldValueInvalid'],
      ['spec.ports[0].targetPort', 'FieldValueInvalid'],
    ]);
    assert.deepEqual(pairs(errs({ ports: [{ port: 70000, targetPort: 80 }] })), [['spec.ports[0].port', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ ports: [{ port: 80, protocol: 'ICMP' }] })), [['spec.ports[0].protocol', 'FieldValueNotSupported']]);
    assert.deepEqual(pairs(errs({ ports: [{ port: 80, targetPort: 'Not_A_Name' }] })), [['spec.ports[0].targetPort', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ ports: [{ port: 80, targetPort: 99999 }] })), [['spec.ports[0].targetPort', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ ports: [{ port: 80 }, { port: 80, protocol: 'UDP' }].map((p, i) => ({ ...p, name: `p${i}` })) })), []);
  });

  it('API reference: port names are required with several ports, DNS labels and unique', () => {
    assert.deepEqual(pairs(errs({ ports: [{ port: 80 }, { port: 443 }] })), [
      ['spec.ports[0].name', 'FieldValueRequired'],
      ['spec.ports[1].name', 'FieldValueRequired'],
    ]);
    assert.deepEqual(pairs(errs({ ports: [{ name: 'web', port: 80 }, { name: 'web', port: 443 }] })), [['spec.ports[1].name', 'FieldValueDuplicate']]);
    assert.deepEqual(pairs(errs({ ports: [{ name: 'Web', port: 80 }] })), [['spec.ports[0].name', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ ports: [{ name: 'a', port: 80 }, { name: 'b', port: 80 }] })), [['spec.ports[1]', 'FieldValueDuplicate']]);
  });

  it('API reference: type values and ExternalName rules', () => {
    assert.deepEqual(pairs(errs({ type: 'Ingress', ports: [{ port: 80 }] })), [['spec.type', 'FieldValueNotSupported']]);
    assert.deepEqual(pairs(errs({ type: 'ExternalName' })), [['spec.externalName', 'FieldValueRequired']]);
    assert.deepEqual(errs({ type: 'ExternalName', externalName: 'db.example.com.' }), []);
    assert.deepEqual(pairs(errs({ type: 'ExternalName', externalName: 'Not A Host' })), [['spec.externalName', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ type: 'ExternalName', externalName: 'a.b', clusterIP: '10.96.0.5' })), [['spec.clusterIPs', 'FieldValueForbidden']]);
  });

  it('API reference: cluster IPs must be addresses (the range is the allocator\'s check); None only for ClusterIP', () => {
    assert.deepEqual(errs({ clusterIP: '192.168.0.1', ports: [{ port: 80 }] }), []);
    assert.deepEqual(pairs(errs({ clusterIP: 'bogus', ports: [{ port: 80 }] })), [['spec.clusterIPs[0]', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] })), [['spec.clusterIPs[0]', 'FieldValueInvalid']]);
  });

  it('API reference: node ports are port numbers, unique, and not used with ClusterIP', () => {
    assert.deepEqual(pairs(errs({ ports: [{ port: 80, nodePort: 30080 }] })), [['spec.ports[0].nodePort', 'FieldValueForbidden']]);
    assert.deepEqual(pairs(errs({ type: 'NodePort', ports: [{ port: 80, nodePort: 70000 }] })), [['spec.ports[0].nodePort', 'FieldValueInvalid']]);
    assert.deepEqual(errs({ type: 'NodePort', ports: [{ port: 80, nodePort: 8080 }] }), [], 'the range is the allocator\'s check');
    assert.deepEqual(pairs(errs({ type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30001 }, { name: 'b', port: 81, nodePort: 30001 }] })), [
      ['spec.ports[1].nodePort', 'FieldValueDuplicate'],
    ]);
  });

  it('API reference: affinity, traffic policies, families and external IPs', () => {
    assert.deepEqual(pairs(errs({ sessionAffinity: 'Sticky', ports: [{ port: 80 }] })), [['spec.sessionAffinity', 'FieldValueNotSupported']]);
    assert.deepEqual(pairs(errs({ externalTrafficPolicy: 'Local', ports: [{ port: 80 }] })), [['spec.externalTrafficPolicy', 'FieldValueInvalid']]);
    assert.deepEqual(errs({ type: 'NodePort', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] }), []);
    assert.deepEqual(pairs(errs({ internalTrafficPolicy: 'Node', ports: [{ port: 80 }] })), [['spec.internalTrafficPolicy', 'FieldValueNotSupported']]);
    assert.deepEqual(pairs(errs({ ipFamilies: ['IPv5'], ports: [{ port: 80 }] })), [['spec.ipFamilies[0]', 'FieldValueNotSupported']]);
    assert.deepEqual(pairs(errs({ externalIPs: ['1.2.3.x'], ports: [{ port: 80 }] })), [['spec.externalIPs[0]', 'FieldValueInvalid']]);
    assert.deepEqual(pairs(errs({ selector: { 'bad key': 'v' }, ports: [{ port: 80 }] })), [['spec.selector', 'FieldValueInvalid']]);
  });

  it('API reference: clusterIP is immutable on update', () => {
    const old = created({ clusterIP: '10.96.0.20', ports: [{ port: 80 }] });
    const o = structuredClone(old);
    Object.assign(specOf(o), { clusterIP: '10.96.0.21', clusterIPs: ['10.96.0.21'] });
    const out = s.validateUpdate?.(o, old) ?? [];
    assert.deepEqual(pairs(out), [['spec.clusterIP', 'FieldValueInvalid']]);
    assert.equal(out[0]?.message, 'Invalid value: "10.96.0.21": field is immutable');
    const same = structuredClone(old);
    (specOf(same).ports as Obj[]).push({ port: 81 });
    assert.deepEqual(s.validateUpdate?.(same, old), []);
  });
});

describe('services: table (API reference)', () => {
  it('API reference: columns Type, Cluster-IP, External-IP, Port(s) and wide Selector', () => {
    assert.deepEqual(services.tableColumns.map((c) => [c.name, c.priority]), [
      ['Type', 0],
      ['Cluster-IP', 0],
      ['External-IP', 0],
      ['Port(s)', 0],
      ['Selector', 1],
    ]);
    const o = created({ clusterIP: '10.96.0.30', selector: { tier: 'web', app: 'shop' }, ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] });
    assert.equal(cell('Type', o), 'ClusterIP');
    assert.equal(cell('Cluster-IP', o), '10.96.0.30');
    assert.equal(cell('External-IP', o), '<none>');
    assert.equal(cell('Port(s)', o), '80/TCP,443/TCP');
    assert.equal(cell('Selector', o), 'app=shop,tier=web');
  });

  it('API reference: node ports, load balancers, external names and headless services', () => {
    const np = created({ type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }, { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30053 }].map((p, i) => ({ name: `p${i}`, ...p })) });
    assert.equal(cell('Port(s)', np), '80:30080/TCP,53:30053/UDP');
    const lb = created({ type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30081 }] });
    assert.equal(cell('External-IP', lb), '<pending>');
    lb.status = { loadBalancer: { ingress: [{ ip: '203.0.113.5' }, { hostname: 'lb.example.com' }] } };
    assert.equal(cell('External-IP', lb), '203.0.113.5,lb.example.com');
    const ext = created({ type: 'ExternalName', externalName: 'db.example.com' });
    assert.equal(cell('External-IP', ext), 'db.example.com');
    assert.equal(cell('Cluster-IP', ext), '<none>');
    assert.equal(cell('Port(s)', ext), '<none>');
    assert.equal(cell('Selector', ext), '<none>');
    assert.equal(cell('Cluster-IP', created({ clusterIP: 'None' })), 'None');
    assert.equal(cell('External-IP', created({ externalIPs: ['198.51.100.1'], ports: [{ port: 80 }] })), '198.51.100.1');
  });
});
