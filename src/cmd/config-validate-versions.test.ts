import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMISSION_CONFIG_GROUP, ADMISSION_CONFIG_LEGACY_GROUP, APISERVER_GROUP, AUDIT_GROUP, AUTHENTICATION_CONFIG_GROUP, AUTHORIZATION_CONFIG_GROUP, TRACING_CONFIG_GROUP } from '../api/naming.js';
import { parseAuthenticationConfiguration } from '../authn/jwt/config.js';
import { validateDocument } from './config-validate.js';

/** Documents in the older versions release 1.31 still reads: `orch-config validate` accepts each. */
const OLDER: { kind: string; text: string }[] = [
  { kind: 'AdmissionConfiguration', text: `apiVersion: ${ADMISSION_CONFIG_GROUP}/v1alpha1\nkind: AdmissionConfiguration\nplugins: []` },
  { kind: 'AdmissionConfiguration', text: `apiVersion: ${ADMISSION_CONFIG_LEGACY_GROUP}/v1alpha1\nkind: AdmissionConfiguration\nplugins: []` },
  {
    kind: 'AuthenticationConfiguration',
    text: `apiVersion: ${AUTHENTICATION_CONFIG_GROUP}/v1alpha1\nkind: AuthenticationConfiguration\njwt: [{issuer: {url: "https://issuer.example.com", audiences: [a]}, claimMappings: {username: {claim: sub, prefix: ""}}}]`,
  },
  { kind: 'AuthorizationConfiguration', text: `apiVersion: ${AUTHORIZATION_CONFIG_GROUP}/v1alpha1\nkind: AuthorizationConfiguration\nauthorizers: [{type: RBAC, name: rbac}]` },
  { kind: 'EgressSelectorConfiguration', text: `apiVersion: ${APISERVER_GROUP}/v1alpha1\nkind: EgressSelectorConfiguration\negressSelections: [{name: etcd, connection: {proxyProtocol: Direct}}]` },
  { kind: 'TracingConfiguration', text: `apiVersion: ${TRACING_CONFIG_GROUP}/v1alpha1\nkind: TracingConfiguration\nsamplingRatePerMillion: 10` },
  { kind: 'EncryptionConfiguration', text: 'apiVersion: v1\nkind: EncryptionConfig\nresources: [{resources: [secrets], providers: [{identity: {}}]}]' },
];

describe('orch-config validate: older document versions', () => {
  for (const d of OLDER) {
    const version = /^apiVersion: (\S+)/.exec(d.text)![1];
    it(`spec 2.12: ${d.kind} in ${version} is accepted`, () => {
      assert.deepEqual(validateDocument(d.text, ''), [{ index: 0, kind: d.kind, errors: [], warnings: [] }]);
    });
  }

  it('spec 2.12: an older version still reports its field errors', () => {
    const [r] = validateDocument(`apiVersion: ${TRACING_CONFIG_GROUP}/v1alpha1\nkind: TracingConfiguration\nsamplingRatePerMillion: 2000000`, '');
    assert.ok(r!.errors.some((e) => e.startsWith('samplingRatePerMillion: Invalid value: 2000000')), r!.errors.join(' | '));
  });

  it('reference behaviour: an audit Policy in v1beta1 is an error naming its removal', () => {
    const [r] = validateDocument(`apiVersion: ${AUDIT_GROUP}/v1beta1\nkind: Policy\nrules: [{level: Metadata}]`, 'p.yaml');
    assert.equal(r!.kind, 'Policy');
    assert.equal(r!.errors.length, 1);
    assert.match(r!.errors[0]!, /^apiVersion: Unsupported value: "[^"]+\/v1beta1".*removed in release 1\.24/);
  });

  it('reference behaviour: AuthenticationConfiguration v1alpha1 parses to the same authenticators as v1beta1', () => {
    const body = 'kind: AuthenticationConfiguration\njwt: [{issuer: {url: "https://issuer.example.com", audiences: [a, b], audienceMatchPolicy: MatchAny}, claimMappings: {username: {claim: sub, prefix: "x:"}}}]';
    const ctx = { disallowedIssuers: [] };
    const older = parseAuthenticationConfiguration(`apiVersion: ${AUTHENTICATION_CONFIG_GROUP}/v1alpha1\n${body}`, ctx);
    assert.deepEqual(older, parseAuthenticationConfiguration(`apiVersion: ${AUTHENTICATION_CONFIG_GROUP}/v1beta1\n${body}`, ctx));
    assert.equal(older.length, 1);
  });
});
