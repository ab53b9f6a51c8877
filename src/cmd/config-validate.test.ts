import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateDocument, VALIDATORS } from './config-validate.js';

/** One valid document of every kind the project reads, and one invalid one with the problem it must report. */
const SAMPLES: { kind: string; valid: string; invalid: string; problem: string }[] = [
  {
    kind: 'AdmissionConfiguration',
    valid: 'apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins: [{name: EventRateLimit, configuration: {apiVersion: eventratelimit.admission.orch.io/v1alpha1, kind: Configuration, limits: [{type: Server, qps: 1, burst: 2}]}}]',
    invalid: 'apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins: [{name: NoSuchPlugin}]',
    problem: 'plugins[0].name: Unsupported value "NoSuchPlugin"',
  },
  {
    kind: 'Configuration',
    valid: 'apiVersion: eventratelimit.admission.orch.io/v1alpha1\nkind: Configuration\nlimits: [{type: User, qps: 5, burst: 10}]',
    invalid: 'apiVersion: eventratelimit.admission.orch.io/v1alpha1\nkind: Configuration\nlimits: [{type: User, qps: 0, burst: 10}]',
    problem: 'limits[0].qps: Invalid value: 0: must be positive',
  },
  {
    kind: 'EncryptionConfiguration',
    valid: 'apiVersion: apiserver.config.orch.io/v1\nkind: EncryptionConfiguration\nresources: [{resources: [secrets], providers: [{identity: {}}]}]',
    invalid: 'apiVersion: apiserver.config.orch.io/v1\nkind: EncryptionConfiguration\nresources: [{resources: [secrets]}]',
    problem: 'resources[0].providers: Required value',
  },
  {
    kind: 'AuthenticationConfiguration',
    valid: 'apiVersion: apiserver.config.orch.io/v1beta1\nkind: AuthenticationConfiguration\njwt: [{issuer: {url: "https://issuer.example.com", audiences: [a]}, claimMappings: {username: {claim: sub, prefix: ""}}}]',
    invalid: 'apiVersion: apiserver.config.orch.io/v1beta1\nkind: AuthenticationConfiguration\njwt: [{issuer: {url: "http://issuer.example.com", audiences: [a]}, claimMappings: {username: {claim: sub, prefix: ""}}}]',
    problem: 'jwt[0].issuer.url',
  },
  {
    kind: 'AuthorizationConfiguration',
    valid: 'apiVersion: apiserver.config.orch.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers: [{type: RBAC, name: rbac}]',
    invalid: 'apiVersion: apiserver.config.orch.io/v1beta1\nkind: AuthorizationConfiguration\nauthorizers: [{type: Magic, name: m}]',
    problem: 'authorizers[0].type',
  },
  {
    kind: 'Policy',
    valid: 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules: [{level: Metadata}]',
    invalid: 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules: [{level: Loud}]',
    problem: 'rules[0].level',
  },
  {
    kind: 'EgressSelectorConfiguration',
    valid: 'apiVersion: apiserver.orch.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections: [{name: cluster, connection: {proxyProtocol: Direct}}]',
    invalid: 'apiVersion: apiserver.orch.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections: [{name: cluster, connection: {proxyProtocol: Carrier}}]',
    problem: 'egressSelections[0].connection.proxyProtocol',
  },
  {
    kind: 'TracingConfiguration',
    valid: 'apiVersion: apiserver.config.orch.io/v1beta1\nkind: TracingConfiguration\nendpoint: "localhost:4317"',
    invalid: 'apiVersion: apiserver.config.orch.io/v1beta1\nkind: TracingConfiguration\nsamplingRatePerMillion: 2000000',
    problem: 'samplingRatePerMillion: Invalid value: 2000000',
  },
  {
    kind: 'OrchSchedulerConfiguration',
    valid: 'apiVersion: orchscheduler.config.orch.io/v1\nkind: OrchSchedulerConfiguration\nparallelism: 8\nprofiles: [{schedulerName: default-scheduler}]',
    invalid: 'apiVersion: orchscheduler.config.orch.io/v1\nkind: OrchSchedulerConfiguration\nparallelism: 0',
    problem: 'parallelism: Invalid value: 0',
  },
  {
    kind: 'OrchProxyConfiguration',
    valid: 'apiVersion: orchproxy.config.orch.io/v1alpha1\nkind: OrchProxyConfiguration\niptables: {masqueradeBit: 31}',
    invalid: 'apiVersion: orchproxy.config.orch.io/v1alpha1\nkind: OrchProxyConfiguration\niptables: {masqueradeBit: 32}',
    problem: 'iptables.masqueradeBit: Invalid value: 32',
  },
  {
    kind: 'OrchControllerManagerConfiguration',
    valid: 'apiVersion: orchcontrollermanager.config.orch.io/v1alpha1\nkind: OrchControllerManagerConfiguration\nGeneric: {Controllers: ["*", tokencleaner]}',
    invalid: 'apiVersion: orchcontrollermanager.config.orch.io/v1alpha1\nkind: OrchControllerManagerConfiguration\nGeneric: {Controllers: [nope]}',
    problem: 'Generic.Controllers[0]: Invalid value: "nope"',
  },
];

describe('validateDocument', () => {
  it('spec 2.12: the samples cover every document kind the dispatcher knows', () => {
    assert.deepEqual(SAMPLES.map((s) => s.kind).sort(), VALIDATORS.map((v) => v.kind).sort());
  });

  for (const s of SAMPLES) {
    it(`spec 2.12: ${s.kind}: a valid document passes and an invalid one names the field`, () => {
      assert.deepEqual(validateDocument(s.valid, ''), [{ index: 0, kind: s.kind, errors: [], warnings: [] }]);
      const [bad] = validateDocument(s.invalid, '');
      assert.equal(bad!.kind, s.kind);
      assert.ok(bad!.errors.some((e) => e.startsWith(s.problem)), `want ${s.problem}, got ${bad!.errors.join(' | ')}`);
    });
  }

  it('spec 2.12: every document of a multi-document file is checked on its own, with its index', () => {
    const text = [SAMPLES[9]!.valid, SAMPLES[10]!.invalid, SAMPLES[7]!.invalid, ''].join('\n---\n');
    const results = validateDocument(text, '');
    assert.deepEqual(
      results.map((r) => [r.index, r.kind, r.errors.length > 0]),
      [
        [0, 'OrchProxyConfiguration', false],
        [1, 'OrchControllerManagerConfiguration', true],
        [2, 'TracingConfiguration', true],
      ],
    );
  });

  it('spec 2.12: unknown kinds, unknown versions, missing type fields and bad YAML are errors', () => {
    const cases: [string, string][] = [
      ['apiVersion: v1\nkind: Pod', 'kind: Unsupported value: "Pod"'],
      ['apiVersion: audit.orch.io/v2\nkind: Policy', 'apiVersion: Unsupported value: "audit.orch.io/v2": supported values for Policy: "audit.orch.io/v1"'],
      ['kind: Policy', 'apiVersion: Required value'],
      ['apiVersion: audit.orch.io/v1', 'kind: Required value'],
      ['a: [', 'not valid YAML or JSON'],
      ['a: 1\na: 2', 'not valid YAML or JSON'],
      ['', 'the document is empty'],
      ['- 1', 'the document must be an object'],
    ];
    for (const [text, want] of cases) {
      const errors = validateDocument(text, '').flatMap((r) => r.errors);
      assert.ok(errors.some((e) => e.startsWith(want)), `${text}: want ${want}, got ${errors.join(' | ')}`);
    }
  });

  it('reference behaviour: JSON documents are read too', () => {
    const json = JSON.stringify({ apiVersion: 'audit.orch.io/v1', kind: 'Policy', rules: [{ level: 'None' }] });
    assert.deepEqual(validateDocument(json, '')[0]!.errors, []);
  });
});
