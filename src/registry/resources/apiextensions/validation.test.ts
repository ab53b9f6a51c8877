import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_APPROVED_ANNOTATION } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { customResourceDefinitions as crds } from './index.js';
import { widgetCRD } from './fixtures.js';

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const s = crds.strategy;
const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const created = (change: (o: Any) => void): ApiObject => {
  const o = widgetCRD() as Any;
  change(o);
  s.prepareForCreate?.(o);
  return o;
};
const v0 = (o: Any) => o.spec.versions[0];

const cases: { name: string; change: (o: Any) => void; want: string[] }[] = [
  { name: 'a controller-gen style CRD', change: () => {}, want: [] },
  { name: 'metadata.name not <plural>.<group>', change: (o) => (o.metadata.name = 'widget.example.com'), want: ['FieldValueInvalid metadata.name'] },
  { name: 'no group', change: (o) => { o.spec.group = ''; o.metadata.name = 'widgets.'; }, want: ['FieldValueRequired spec.group'] },
  { name: 'a group without a dot', change: (o) => { o.spec.group = 'example'; o.metadata.name = 'widgets.example'; }, want: ['FieldValueInvalid spec.group'] },
  { name: 'an upper-case group', change: (o) => { o.spec.group = 'Example.com'; o.metadata.name = 'widgets.Example.com'; }, want: ['FieldValueInvalid spec.group'] },
  { name: 'no scope', change: (o) => delete o.spec.scope, want: ['FieldValueRequired spec.scope'] },
  { name: 'an unknown scope', change: (o) => (o.spec.scope = 'Global'), want: ['FieldValueNotSupported spec.scope'] },
  { name: 'an upper-case plural', change: (o) => { o.spec.names.plural = 'Widgets'; o.metadata.name = 'Widgets.example.com'; }, want: ['FieldValueInvalid spec.names.plural'] },
  { name: 'no plural', change: (o) => { o.spec.names.plural = ''; o.metadata.name = '.example.com'; }, want: ['FieldValueRequired spec.names.plural'] },
  { name: 'a singular with a dot', change: (o) => (o.spec.names.singular = 'wid.get'), want: ['FieldValueInvalid spec.names.singular'] },
  { name: 'no kind', change: (o) => { delete o.spec.names.kind; delete o.spec.names.listKind; }, want: ['FieldValueRequired spec.names.kind', 'FieldValueRequired spec.names.listKind'] },
  { name: 'a kind that is no identifier', change: (o) => (o.spec.names.kind = 'Wid_get'), want: ['FieldValueInvalid spec.names.kind'] },
  { name: 'listKind equal to kind', change: (o) => (o.spec.names.listKind = 'Widget'), want: ['FieldValueInvalid spec.names.listKind'] },
  { name: 'a bad short name', change: (o) => (o.spec.names.shortNames = ['ok', 'Not_OK']), want: ['FieldValueInvalid spec.names.shortNames[1]'] },
  { name: 'a bad category', change: (o) => (o.spec.names.categories = ['all', 'a b']), want: ['FieldValueInvalid spec.names.categories[1]'] },
  { name: 'no versions', change: (o) => (o.spec.versions = []), want: ['FieldValueInvalid spec.versions', 'FieldValueInvalid status.storedVersions'] },
  {
    name: 'two storage versions',
    change: (o) => o.spec.versions.push({ ...structuredClone(v0(o)), name: 'v2' }),
    want: ['FieldValueInvalid spec.versions', 'FieldValueInvalid status.storedVersions'],
  },
  {
    name: 'a duplicate version name',
    change: (o) => o.spec.versions.push({ ...structuredClone(v0(o)), storage: false }),
    want: ['FieldValueInvalid spec.versions'],
  },
  { name: 'a version name that is no DNS-1035 label', change: (o) => (v0(o).name = '1v'), want: ['FieldValueInvalid spec.versions[0].name'] },
  { name: 'a version without schema', change: (o) => delete v0(o).schema, want: ['FieldValueRequired spec.versions[0].schema.openAPIV3Schema', 'FieldValueInvalid spec.versions[0].selectableFields'] },
  { name: 'a deprecation warning on a version not deprecated', change: (o) => (v0(o).deprecationWarning = 'old'), want: ['FieldValueInvalid spec.versions[0].deprecationWarning'] },
  { name: 'a deprecation warning that is too long', change: (o) => Object.assign(v0(o), { deprecated: true, deprecationWarning: 'x'.repeat(257) }), want: ['FieldValueInvalid spec.versions[0].deprecationWarning'] },
  { name: 'a deprecation warning with a control character', change: (o) => Object.assign(v0(o), { deprecated: true, deprecationWarning: 'a\u0007b' }), want: ['FieldValueInvalid spec.versions[0].deprecationWarning'] },
  { name: 'a deprecated version with its own warning', change: (o) => Object.assign(v0(o), { deprecated: true, deprecationWarning: 'use v2' }), want: [] },
  { name: 'a scale path outside .spec', change: (o) => (v0(o).subresources.scale.specReplicasPath = '.status.replicas'), want: ['FieldValueInvalid spec.versions[0].subresources.scale.specReplicasPath'] },
  { name: 'a scale path not starting with a dot', change: (o) => (v0(o).subresources.scale.statusReplicasPath = 'status.replicas'), want: ['FieldValueInvalid spec.versions[0].subresources.scale.statusReplicasPath'] },
  { name: 'no scale specReplicasPath', change: (o) => delete v0(o).subresources.scale.specReplicasPath, want: ['FieldValueRequired spec.versions[0].subresources.scale.specReplicasPath'] },
  { name: 'a label selector path outside spec and status', change: (o) => (v0(o).subresources.scale.labelSelectorPath = '.metadata.labels'), want: ['FieldValueInvalid spec.versions[0].subresources.scale.labelSelectorPath'] },
  { name: 'a printer column without name', change: (o) => delete v0(o).additionalPrinterColumns[0].name, want: ['FieldValueRequired spec.versions[0].additionalPrinterColumns[0].name'] },
  { name: 'a printer column of unknown type', change: (o) => (v0(o).additionalPrinterColumns[0].type = 'text'), want: ['FieldValueInvalid spec.versions[0].additionalPrinterColumns[0].type'] },
  { name: 'a printer column of unknown format', change: (o) => (v0(o).additionalPrinterColumns[1].format = 'uint8'), want: ['FieldValueInvalid spec.versions[0].additionalPrinterColumns[1].format'] },
  { name: 'a printer column without jsonPath', change: (o) => delete v0(o).additionalPrinterColumns[0].jsonPath, want: ['FieldValueRequired spec.versions[0].additionalPrinterColumns[0].jsonPath'] },
  { name: 'a printer column path without leading dot', change: (o) => (v0(o).additionalPrinterColumns[0].jsonPath = 'spec.size'), want: ['FieldValueInvalid spec.versions[0].additionalPrinterColumns[0].jsonPath'] },
  { name: 'a printer column path that does not parse', change: (o) => (v0(o).additionalPrinterColumns[0].jsonPath = '.spec.items[x y]'), want: ['FieldValueInvalid spec.versions[0].additionalPrinterColumns[0].jsonPath'] },
  { name: 'a selectable field not in the schema', change: (o) => (v0(o).selectableFields = [{ jsonPath: '.spec.nothing' }]), want: ['FieldValueInvalid spec.versions[0].selectableFields[0].jsonPath'] },
  { name: 'a selectable field of type object', change: (o) => (v0(o).selectableFields = [{ jsonPath: '.spec.labels' }]), want: ['FieldValueInvalid spec.versions[0].selectableFields[0].jsonPath'] },
  { name: 'a selectable field in metadata', change: (o) => (v0(o).selectableFields = [{ jsonPath: '.metadata.name' }]), want: ['FieldValueInvalid spec.versions[0].selectableFields[0].jsonPath'] },
  { name: 'a map entry as selectable field', change: (o) => (v0(o).selectableFields = [{ jsonPath: ".spec.labels['app']" }]), want: [] },
  { name: 'a duplicate selectable field', change: (o) => (v0(o).selectableFields = [{ jsonPath: '.spec.size' }, { jsonPath: ".spec['size']" }]), want: ['FieldValueDuplicate spec.versions[0].selectableFields[1].jsonPath'] },
  { name: 'a selectable field without jsonPath', change: (o) => (v0(o).selectableFields = [{}]), want: ['FieldValueRequired spec.versions[0].selectableFields[0].jsonPath'] },
  {
    name: 'nine selectable fields',
    change: (o) => {
      const props = v0(o).schema.openAPIV3Schema.properties.spec.properties;
      for (let i = 0; i < 9; i++) props[`f${i}`] = { type: 'string' };
      v0(o).selectableFields = Array.from({ length: 9 }, (_, i) => ({ jsonPath: `.spec.f${i}` }));
    },
    want: ['FieldValueTooMany spec.versions[0].selectableFields'],
  },
  { name: 'an unknown conversion strategy', change: (o) => (o.spec.conversion = { strategy: 'Magic' }), want: ['FieldValueNotSupported spec.conversion.strategy'] },
  { name: 'a Webhook conversion without webhook', change: (o) => (o.spec.conversion = { strategy: 'Webhook' }), want: ['FieldValueRequired spec.conversion.webhook.clientConfig', 'FieldValueRequired spec.conversion.webhook.conversionReviewVersions'] },
  {
    name: 'a Webhook conversion with url and service',
    change: (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example/c', service: { name: 's', namespace: 'n' } }, conversionReviewVersions: ['v1'] } }),
    want: ['FieldValueRequired spec.conversion.webhook.clientConfig'],
  },
  {
    name: 'a Webhook conversion to an http URL with a query',
    change: (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://x.example/c?a=b' }, conversionReviewVersions: ['v1'] } }),
    want: ['FieldValueInvalid spec.conversion.webhook.clientConfig.url', 'FieldValueInvalid spec.conversion.webhook.clientConfig.url'],
  },
  {
    name: 'a Webhook conversion with a good service',
    change: (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 's', namespace: 'n', path: '/convert' } }, conversionReviewVersions: ['v1', 'v1beta1'] } }),
    want: [],
  },
  {
    name: 'conversion review versions duplicated and unknown',
    change: (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example/c' }, conversionReviewVersions: ['v2', 'v2'] } }),
    want: ['FieldValueInvalid spec.conversion.webhook.conversionReviewVersions[1]', 'FieldValueInvalid spec.conversion.webhook.conversionReviewVersions'],
  },
  {
    name: 'a caBundle that is not base64',
    change: (o) => (o.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example/c', caBundle: 'not base64!' }, conversionReviewVersions: ['v1'] } }),
    want: ['FieldValueInvalid spec.conversion.webhook.clientConfig.caBundle'],
  },
  {
    name: 'a webhook client config with strategy None',
    change: (o) => (o.spec.conversion = { strategy: 'None', webhook: { clientConfig: { url: 'https://x.example/c' }, conversionReviewVersions: ['v1'] } }),
    want: ['FieldValueForbidden spec.conversion.webhook.clientConfig', 'FieldValueForbidden spec.conversion.webhook.conversionReviewVersions'],
  },
  { name: 'preserveUnknownFields true', change: (o) => (o.spec.preserveUnknownFields = true), want: ['FieldValueInvalid spec.preserveUnknownFields'] },
  {
    name: 'a protected group without approval',
    change: (o) => { o.spec.group = 'things.orch.io'; o.metadata.name = 'widgets.things.orch.io'; },
    want: [`FieldValueRequired metadata.annotations[${API_APPROVED_ANNOTATION}]`],
  },
  {
    name: 'a protected group with a bad approval',
    change: (o) => { o.spec.group = 'things.orch.io'; o.metadata.name = 'widgets.things.orch.io'; o.metadata.annotations[API_APPROVED_ANNOTATION] = 'yes'; },
    want: [`FieldValueInvalid metadata.annotations[${API_APPROVED_ANNOTATION}]`],
  },
  {
    name: 'a protected group marked unapproved',
    change: (o) => { o.spec.group = 'things.orch.io'; o.metadata.name = 'widgets.things.orch.io'; o.metadata.annotations[API_APPROVED_ANNOTATION] = 'unapproved, testing only'; },
    want: [],
  },
];

for (const c of cases) {
  test(`spec 9.6, CRD validation: ${c.name}`, () => {
    assert.deepEqual(summary(s.validate(created(c.change))), c.want);
  });
}

test('reference behaviour, CRD validation messages name the rule', () => {
  const [name] = s.validate(created((o) => (o.metadata.name = 'x.example.com')));
  assert.match(name?.message ?? '', /must be spec\.names\.plural\+"\."\+spec\.group/);
  const storage = s.validate(created((o) => (v0(o).storage = false))).find((e) => e.field === 'spec.versions');
  assert.match(storage?.message ?? '', /must have exactly one version marked as storage version/);
  const scale = s.validate(created((o) => (v0(o).subresources.scale.specReplicasPath = '.status.x')));
  assert.match(scale[0]?.message ?? '', /should be a json path under \.spec/);
});

test('spec 9.6, CRD validation: a bad schema is reported under the version path by the schema compiler', () => {
  const errs = s.validate(created((o) => {
    v0(o).schema.openAPIV3Schema.properties.spec.properties.size = { type: 'strin' };
    delete v0(o).selectableFields;
  }));
  assert.ok(errs.length > 0);
  for (const e of errs) assert.ok(e.field.startsWith('spec.versions[0].schema.openAPIV3Schema'), e.field);
});

test('spec 9.6, CRD validation: with the status subresource on, the root schema is an object with the allowed keywords only', () => {
  const fields = (change: (o: Any) => void) => summary(s.validate(created(change)));
  assert.ok(fields((o) => (v0(o).schema.openAPIV3Schema.type = 'array')).includes('FieldValueInvalid spec.versions[0].schema.openAPIV3Schema.type'));
  const extra = s.validate(created((o) => (v0(o).schema.openAPIV3Schema.anyOf = [{ required: ['spec'] }])));
  const rootErr = extra.find((e) => e.field === 'spec.versions[0].schema.openAPIV3Schema');
  assert.match(rootErr?.message ?? '', /fields are allowed at the root of the schema if the status subresource is enabled/);
  assert.deepEqual(fields((o) => { delete v0(o).subresources.status; v0(o).schema.openAPIV3Schema.anyOf = [{ required: ['spec'] }]; }).filter((f) => f.endsWith('openAPIV3Schema')), []);
});
