import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import {
  ADMISSION_CONFIG_GROUP,
  ADMISSION_CONFIG_LEGACY_GROUP,
  APISERVER_GROUP,
  AUDIT_GROUP,
  AUTHORIZATION_CONFIG_GROUP,
  RESOURCE_QUOTA_CONFIG_GROUP,
  TRACING_CONFIG_GROUP,
} from '../api/naming.js';
import { parseAdmissionConfiguration } from './admission.js';
import { parsePolicy } from './audit-policy.js';
import { parseAuthorizationDocument } from './authorization.js';
import { parseEgressSelectorConfiguration } from './egress-selector.js';
import { ENCRYPTION_CONFIG_VERSION, parseEncryptionConfiguration } from './encryption.js';
import { parseResourceQuotaConfiguration } from './resource-quota.js';
import { parseTracingConfiguration } from './tracing.js';
import { readableVersions, toCurrentVersion, type VersionTable } from './versions.js';

const TABLE: VersionTable = {
  current: 'example/v2',
  older: { 'example/v1': null, 'example/v0': (doc) => ({ ...doc, renamed: doc.old, old: undefined }) },
};

describe('toCurrentVersion', () => {
  const cases: { title: string; doc: unknown; want: unknown }[] = [
    { title: 'an older version with the same fields gets the current apiVersion', doc: { apiVersion: 'example/v1', kind: 'K', a: 1 }, want: { apiVersion: 'example/v2', kind: 'K', a: 1 } },
    { title: 'an older version with a step has its fields converted', doc: { apiVersion: 'example/v0', old: 'x' }, want: { apiVersion: 'example/v2', renamed: 'x', old: undefined } },
    { title: 'the current version is left as it is', doc: { apiVersion: 'example/v2', a: 1 }, want: { apiVersion: 'example/v2', a: 1 } },
    { title: 'an unknown version is left for the validator to report', doc: { apiVersion: 'example/v9', a: 1 }, want: { apiVersion: 'example/v9', a: 1 } },
    { title: 'a document without apiVersion is left as it is', doc: { a: 1 }, want: { a: 1 } },
    { title: 'a non-object is left as it is', doc: [1], want: [1] },
  ];
  for (const c of cases) {
    it(`spec 2.12: ${c.title}`, () => assert.deepEqual(toCurrentVersion(c.doc, TABLE), c.want));
  }

  it('spec 2.12: the input document is not changed', () => {
    const doc = { apiVersion: 'example/v0', old: 'x' };
    toCurrentVersion(doc, TABLE);
    assert.deepEqual(doc, { apiVersion: 'example/v0', old: 'x' });
  });

  it('spec 2.12: the readable versions are the current one, then the older ones', () => {
    assert.deepEqual(readableVersions(TABLE), ['example/v2', 'example/v1', 'example/v0']);
  });
});

/** A document in an older version parses to exactly what the same document in the current version gives. */
const CONVERSIONS: { title: string; older: string; current: string; body: string; parse: (text: string) => unknown }[] = [
  {
    title: 'AdmissionConfiguration v1alpha1 → v1',
    older: `${ADMISSION_CONFIG_GROUP}/v1alpha1`,
    current: `${ADMISSION_CONFIG_GROUP}/v1`,
    body: 'kind: AdmissionConfiguration\nplugins: [{name: EventRateLimit, configuration: {limits: []}}]',
    parse: (t) => [...parseAdmissionConfiguration(t, '/', () => true)],
  },
  {
    title: 'AdmissionConfiguration of the older group v1alpha1 → v1',
    older: `${ADMISSION_CONFIG_LEGACY_GROUP}/v1alpha1`,
    current: `${ADMISSION_CONFIG_GROUP}/v1`,
    body: 'kind: AdmissionConfiguration\nplugins: [{name: AlwaysPullImages}]',
    parse: (t) => [...parseAdmissionConfiguration(t, '/', () => true)],
  },
  {
    title: 'AuthorizationConfiguration v1alpha1 → v1beta1',
    older: `${AUTHORIZATION_CONFIG_GROUP}/v1alpha1`,
    current: `${AUTHORIZATION_CONFIG_GROUP}/v1beta1`,
    body: 'kind: AuthorizationConfiguration\nauthorizers: [{type: Node, name: node}, {type: RBAC, name: rbac}]',
    parse: (t) => parseAuthorizationDocument(t, { compileCondition: (e) => e }),
  },
  {
    title: 'EgressSelectorConfiguration v1alpha1 → v1beta1 (the deprecated name master included)',
    older: `${APISERVER_GROUP}/v1alpha1`,
    current: `${APISERVER_GROUP}/v1beta1`,
    body: 'kind: EgressSelectorConfiguration\negressSelections: [{name: master, connection: {proxyProtocol: HTTPConnect, transport: {uds: {udsName: /run/proxy.sock}}}}]',
    parse: (t) => parseEgressSelectorConfiguration(t, 'test', () => true),
  },
  {
    title: 'TracingConfiguration v1alpha1 → v1beta1',
    older: `${TRACING_CONFIG_GROUP}/v1alpha1`,
    current: `${TRACING_CONFIG_GROUP}/v1beta1`,
    body: 'kind: TracingConfiguration\nendpoint: "collector:4317"\nsamplingRatePerMillion: 250',
    parse: (t) => parseTracingConfiguration(t, 'test'),
  },
  ...['v1beta1', 'v1alpha1'].map((v) => ({
    title: `ResourceQuota plugin Configuration ${v} → v1`,
    older: `${RESOURCE_QUOTA_CONFIG_GROUP}/${v}`,
    current: `${RESOURCE_QUOTA_CONFIG_GROUP}/v1`,
    body: 'kind: Configuration\nlimitedResources: [{resource: pods, matchContains: [cpu], matchScopes: [{scopeName: PriorityClass, operator: In, values: [high]}]}]',
    parse: (t: string) => parseResourceQuotaConfiguration(parseYaml(t)),
  })),
];

describe('older versions of the server documents', () => {
  for (const c of CONVERSIONS) {
    it(`reference behaviour: ${c.title} reads the same as the current version`, () => {
      const fromOlder = c.parse(`apiVersion: ${c.older}\n${c.body}`);
      assert.deepEqual(fromOlder, c.parse(`apiVersion: ${c.current}\n${c.body}`));
    });
  }

  it('reference behaviour: an older version is still validated (its field errors are reported)', () => {
    assert.throws(() => parseTracingConfiguration(`apiVersion: ${TRACING_CONFIG_GROUP}/v1alpha1\nkind: TracingConfiguration\nsamplingRatePerMillion: -1`, 'f'), /samplingRatePerMillion: Invalid value: -1/);
    assert.throws(
      () => parseAuthorizationDocument(`apiVersion: ${AUTHORIZATION_CONFIG_GROUP}/v1alpha1\nkind: AuthorizationConfiguration\nauthorizers: []`, { compileCondition: (e) => e }),
      /authorizers: Required value/,
    );
  });

  it('reference behaviour: EncryptionConfig in the core v1 (the alias the reference keeps) reads as EncryptionConfiguration', () => {
    const body = 'resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: k1, secret: BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=}]}}, {identity: {}}]}]';
    const alias = parseEncryptionConfiguration(`apiVersion: v1\nkind: EncryptionConfig\n${body}`);
    assert.deepEqual(alias, parseEncryptionConfiguration(`apiVersion: ${ENCRYPTION_CONFIG_VERSION}\nkind: EncryptionConfiguration\n${body}`));
  });

  it('reference behaviour: the alias kind in any other apiVersion stays an error', () => {
    assert.throws(() => parseEncryptionConfiguration(`apiVersion: ${ENCRYPTION_CONFIG_VERSION}\nkind: EncryptionConfig\nresources: [{resources: [secrets], providers: [{identity: {}}]}]`), /kind: Unsupported value "EncryptionConfig"/);
  });

  for (const version of ['v1alpha1', 'v1beta1']) {
    it(`reference behaviour: an audit Policy in ${version} is refused, naming its removal in 1.24`, () => {
      assert.throws(
        () => parsePolicy(`apiVersion: ${AUDIT_GROUP}/${version}\nkind: Policy\nrules: [{level: Metadata}]`, 'policy.yaml'),
        (e: Error) => e.message.startsWith(`--audit-policy-file policy.yaml: apiVersion: Unsupported value: "${AUDIT_GROUP}/${version}"`) && e.message.includes('removed in release 1.24'),
      );
    });
  }

  it('reference behaviour: an unknown audit Policy version gets no removal note', () => {
    assert.throws(
      () => parsePolicy(`apiVersion: ${AUDIT_GROUP}/v2\nkind: Policy\nrules: [{level: Metadata}]`, 'p'),
      (e: Error) => /apiVersion: Unsupported value: "[^"]+\/v2"/.test(e.message) && !e.message.includes('removed'),
    );
  });
});
