import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NETWORKING_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { INGRESS_CLASS_ANNOTATION, ingresses, isDNS1035Label, isWildcardDNS1123Subdomain } from './ingress.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const ingress = (spec: unknown, extra: Partial<ApiObject> = {}): ApiObject => ({
  apiVersion: `${NETWORKING_GROUP}/v1`,
  kind: 'Ingress',
  metadata: { name: 'web', namespace: 'default' },
  spec,
  ...extra,
});
const svc = (port: object = { number: 80 }, name = 'web') => ({ service: { name, port } });
const path = (p: object) => ({ rules: [{ host: 'example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: svc(), ...p }] } }] });
const validate = (spec: unknown, extra?: Partial<ApiObject>) => summary(ingresses.strategy.validate(ingress(spec, extra)));

const P = 'spec.rules[0].http.paths[0]';
const cases: { name: string; spec: unknown; extra?: Partial<ApiObject>; want: string[] }[] = [
  { name: 'a rule with a Prefix path and a service backend', spec: path({}), want: [] },
  { name: 'only a default backend', spec: { defaultBackend: svc({ name: 'http' }) }, want: [] },
  { name: 'a resource backend', spec: path({ backend: { resource: { apiGroup: 'example.com', kind: 'Bucket', name: 'static' } } }), want: [] },
  { name: 'a wildcard host and an ImplementationSpecific path without a value', spec: { rules: [{ host: '*.example.com', http: { paths: [{ pathType: 'ImplementationSpecific', backend: svc() }] } }] }, want: [] },
  { name: 'TLS hosts and secret', spec: { ...path({}), tls: [{ hosts: ['example.com', '*.example.com'], secretName: 'tls-cert' }] }, want: [] },
  { name: 'neither rules nor a default backend', spec: {}, want: ['FieldValueInvalid spec'] },
  { name: 'a path without pathType', spec: path({ pathType: undefined }), want: [`FieldValueRequired ${P}.pathType`] },
  { name: 'an unknown pathType', spec: path({ pathType: 'Regex' }), want: [`FieldValueNotSupported ${P}.pathType`] },
  { name: 'an Exact path that is not absolute', spec: path({ pathType: 'Exact', path: 'api' }), want: [`FieldValueInvalid ${P}.path`] },
  { name: 'a Prefix path with // and a /.. suffix', spec: path({ path: '/a//b/..' }), want: [`FieldValueInvalid ${P}.path`, `FieldValueInvalid ${P}.path`] },
  { name: 'an ImplementationSpecific path that is not absolute', spec: path({ pathType: 'ImplementationSpecific', path: 'x' }), want: [`FieldValueInvalid ${P}.path`] },
  { name: 'a paths list that is empty', spec: { rules: [{ host: 'example.com', http: { paths: [] } }] }, want: ['FieldValueRequired spec.rules[0].http.paths'] },
  { name: 'both resource and service backends', spec: path({ backend: { ...svc(), resource: { kind: 'K', name: 'n' } } }), want: [`FieldValueInvalid ${P}.backend`] },
  { name: 'no backend', spec: path({ backend: {} }), want: [`FieldValueInvalid ${P}.backend`] },
  { name: 'a service name that is not a DNS-1035 label', spec: path({ backend: svc({ number: 80 }, '1web') }), want: [`FieldValueInvalid ${P}.backend.service.name`] },
  { name: 'a service without a name', spec: path({ backend: svc({ number: 80 }, '') }), want: [`FieldValueRequired ${P}.backend.service.name`] },
  { name: 'a port with both name and number', spec: path({ backend: svc({ number: 80, name: 'http' }) }), want: [`FieldValueInvalid ${P}.backend`] },
  { name: 'a port with neither name nor number', spec: path({ backend: svc({}) }), want: [`FieldValueRequired ${P}.backend`] },
  { name: 'a port number out of range', spec: path({ backend: svc({ number: 70000 }) }), want: [`FieldValueInvalid ${P}.backend.service.port.number`] },
  { name: 'a bad port name', spec: path({ backend: svc({ name: 'a--b' }) }), want: [`FieldValueInvalid ${P}.backend.service.port.name`] },
  { name: 'a resource backend without kind and name', spec: path({ backend: { resource: {} } }), want: [`FieldValueRequired ${P}.backend.resource.kind`, `FieldValueRequired ${P}.backend.resource.name`] },
  { name: 'a host that is an IP address', spec: { rules: [{ host: '10.0.0.1' }] }, want: ['FieldValueInvalid spec.rules[0].host'] },
  { name: 'a host that is not a DNS name', spec: { rules: [{ host: 'Example.com' }] }, want: ['FieldValueInvalid spec.rules[0].host'] },
  { name: 'a wildcard that is not the whole first label', spec: { rules: [{ host: 'a*.example.com' }] }, want: ['FieldValueInvalid spec.rules[0].host'] },
  { name: 'bad TLS host and secret name', spec: { ...path({}), tls: [{ hosts: ['Bad_Host'], secretName: 'Bad' }] }, want: ['FieldValueInvalid spec.tls[0].hosts[0]', 'FieldValueInvalid spec.tls[0].secretName'] },
  { name: 'a bad ingressClassName', spec: { ...path({}), ingressClassName: 'Nginx' }, want: ['FieldValueInvalid spec.ingressClassName'] },
  {
    name: 'a class annotation that disagrees with ingressClassName',
    spec: { ...path({}), ingressClassName: 'nginx' },
    extra: { metadata: { name: 'web', namespace: 'default', annotations: { [INGRESS_CLASS_ANNOTATION]: 'traefik' } } },
    want: [`FieldValueInvalid annotations.${INGRESS_CLASS_ANNOTATION}`],
  },
  { name: 'a load balancer IP that is not one', spec: path({}), extra: { status: { loadBalancer: { ingress: [{ ip: 'nope' }, { hostname: '1.2.3.4' }] } } }, want: ['FieldValueInvalid status.loadBalancer.ingress[0].ip', 'FieldValueInvalid status.loadBalancer.ingress[1].hostname'] },
  { name: 'a spec of the wrong type', spec: 'x', want: ['FieldValueTypeInvalid spec', 'FieldValueInvalid spec'] },
];

for (const c of cases) {
  test(`reference behaviour, Ingress validation: ${c.name}`, () => {
    assert.deepEqual(validate(c.spec, c.extra), c.want);
  });
}

test('reference behaviour, Ingress: messages for a missing pathType and an empty spec', () => {
  const errs = ingresses.strategy.validate(ingress(path({ pathType: undefined })));
  assert.equal(errs[0]?.message, 'Required value: pathType must be specified');
  assert.match(ingresses.strategy.validate(ingress({}))[0]?.message ?? '', /either `defaultBackend` or `rules` must be specified/);
});

test('reference behaviour, Ingress: DNS-1035 labels and wildcard subdomains', () => {
  for (const [v, ok] of [['web', true], ['web-1', true], ['1web', false], ['Web', false], ['a'.repeat(64), false]] as const) {
    assert.equal(isDNS1035Label(v).length === 0, ok, v);
  }
  for (const [v, ok] of [['*.example.com', true], ['*.a', true], ['*', false], ['example.com', false], ['*.*.example.com', false]] as const) {
    assert.equal(isWildcardDNS1123Subdomain(v).length === 0, ok, v);
  }
});

test('reference behaviour, Ingress: table CLASS, HOSTS, ADDRESS, PORTS', () => {
  const cells = (o: ApiObject) => ingresses.tableColumns.map((c) => c.value(o));
  assert.deepEqual(ingresses.tableColumns.map((c) => c.name), ['Class', 'Hosts', 'Address', 'Ports']);
  assert.deepEqual(cells(ingress({ defaultBackend: svc() })), ['<none>', '*', '', '80']);
  const four = { ingressClassName: 'nginx', rules: ['a.com', 'b.com', 'c.com', 'd.com'].map((host) => ({ host })), tls: [{ hosts: ['a.com'] }] };
  const lb = { loadBalancer: { ingress: [{ ip: '10.0.0.2' }, { hostname: 'lb.example.com' }, { ip: '10.0.0.2' }] } };
  assert.deepEqual(cells(ingress(four, { status: lb })), ['nginx', 'a.com,b.com,c.com + 1 more...', '10.0.0.2,lb.example.com', '80, 443']);
});

test('reference behaviour, Ingress: short name ing, status subresource, deprecated class annotation warns', () => {
  assert.deepEqual(ingresses.shortNames, ['ing']);
  assert.deepEqual(ingresses.subresources, ['status']);
  const annotated = ingress(path({}), { metadata: { name: 'web', annotations: { [INGRESS_CLASS_ANNOTATION]: 'nginx' } } });
  assert.equal(ingresses.strategy.warnings?.(annotated).length, 1);
  assert.deepEqual(ingresses.strategy.warnings?.(ingress(path({}))), []);
});

test('reference behaviour, Ingress: create drops status and updates keep the stored one', () => {
  const o = ingress(path({}), { status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } });
  ingresses.strategy.prepareForCreate?.(o);
  assert.equal(o.status, undefined);
  const next = ingress(path({}), { status: { loadBalancer: {} } });
  ingresses.strategy.prepareForUpdate?.(next, ingress(path({}), { status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } }));
  assert.deepEqual(next.status, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } });
});
