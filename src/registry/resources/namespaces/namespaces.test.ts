import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NAMESPACE_FINALIZER, NAMESPACE_NAME_LABEL } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { coreTypes } from '../core.js';
import { namespaces } from './index.js';

const s = namespaces.strategy;
const ns = (extra: ApiObject = {}): ApiObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' }, ...extra });
const cell = (name: string, o: ApiObject) => namespaces.tableColumns.find((c) => c.name === name)?.value(o);

describe('namespaces', () => {
  it('API reference: identity, scope and status subresource', () => {
    assert.equal(namespaces.group, '');
    assert.equal(namespaces.version, 'v1');
    assert.equal(namespaces.kind, 'Namespace');
    assert.equal(namespaces.listKind, 'NamespaceList');
    assert.deepEqual(namespaces.shortNames, ['ns']);
    assert.equal(namespaces.namespaced, false);
    assert.deepEqual(namespaces.subresources, ['status', 'finalize']);
    assert.equal(namespaces.storageKey, 'core/namespaces');
    assert.equal(s.nameRule, 'label');
    assert.equal(s.allowCreateOnUpdate, false);
    assert.equal(s.allowUnconditionalUpdate, true);
    assert.ok(namespaces.schema.properties?.spec?.properties?.finalizers);
  });

  it('spec 3.1: create adds the lifecycle finalizer, Active phase and the name label', () => {
    const o = ns({ status: { phase: 'Terminating' } });
    s.prepareForCreate?.(o);
    assert.deepEqual(o.spec, { finalizers: [NAMESPACE_FINALIZER] });
    assert.deepEqual(o.status, { phase: 'Active' });
    assert.equal(o.metadata?.labels?.[NAMESPACE_NAME_LABEL], 'team-a');
  });

  it('spec 3.1: create keeps other finalizers and appends the lifecycle one', () => {
    const o = ns({ spec: { finalizers: ['example.com/cleanup'] } });
    s.prepareForCreate?.(o);
    assert.deepEqual(o.spec, { finalizers: ['example.com/cleanup', NAMESPACE_FINALIZER] });
    const again = ns({ spec: { finalizers: [NAMESPACE_FINALIZER] } });
    s.prepareForCreate?.(again);
    assert.deepEqual(again.spec, { finalizers: [NAMESPACE_FINALIZER] });
  });

  it('API reference: update keeps status, finalizers and the name label from the stored object', () => {
    const old = ns({ spec: { finalizers: [NAMESPACE_FINALIZER] }, status: { phase: 'Active' } });
    const o = ns({ metadata: { name: 'team-a', labels: { [NAMESPACE_NAME_LABEL]: 'other', a: 'b' } }, spec: {}, status: { phase: 'Terminating' } });
    s.prepareForUpdate?.(o, old);
    assert.deepEqual(o.status, { phase: 'Active' });
    assert.deepEqual(o.spec, { finalizers: [NAMESPACE_FINALIZER] });
    assert.deepEqual(o.metadata?.labels, { [NAMESPACE_NAME_LABEL]: 'team-a', a: 'b' });
  });

  it('API reference: a status update keeps spec and owned metadata', () => {
    const old = ns({ metadata: { name: 'team-a', labels: { x: '1' } }, spec: { finalizers: [NAMESPACE_FINALIZER] }, status: { phase: 'Active' } });
    const o = ns({ metadata: { name: 'team-a', labels: { x: '2' }, resourceVersion: '5' }, spec: {}, status: { phase: 'Terminating' } });
    s.prepareForStatusUpdate?.(o, old);
    assert.deepEqual(o.spec, { finalizers: [NAMESPACE_FINALIZER] });
    assert.deepEqual(o.status, { phase: 'Terminating' });
    assert.equal(o.metadata?.labels?.x, '1');
    assert.equal(o.metadata?.resourceVersion, '5');
  });

  it('API reference: finalizers must be qualified names or standard names', () => {
    assert.deepEqual(s.validate(ns({ spec: { finalizers: [NAMESPACE_FINALIZER, 'example.com/x'] } })), []);
    const errs = s.validate(ns({ spec: { finalizers: ['ok', 'example.com/x', 'Bad Name!', 'a/b/c'] } }));
    assert.deepEqual(
      errs.map((e) => e.field),
      ['spec.finalizers[0]', 'spec.finalizers[2]', 'spec.finalizers[3]'],
    );
    assert.match(errs[0]?.message ?? '', /neither a standard finalizer name nor is it fully qualified/);
    assert.equal(errs[1]?.type, 'FieldValueInvalid');
  });

  it('API reference: a non-list finalizers field is a type error', () => {
    const errs = s.validate(ns({ spec: { finalizers: 'x' } }));
    assert.deepEqual(errs.map((e) => [e.field, e.type]), [['spec.finalizers', 'FieldValueTypeInvalid']]);
  });

  it('API reference: status.phase must be Active or Terminating', () => {
    const errs = s.validate(ns({ status: { phase: 'Gone' } }));
    assert.deepEqual(errs.map((e) => [e.field, e.type]), [['status.phase', 'FieldValueNotSupported']]);
  });

  it('API reference: table shows Status and field selector offers status.phase', () => {
    const o = ns({ status: { phase: 'Terminating' } });
    assert.deepEqual(namespaces.tableColumns.map((c) => c.name), ['Status']);
    assert.equal(cell('Status', o), 'Terminating');
    assert.deepEqual(namespaces.selectableFields?.(o), { 'status.phase': 'Terminating' });
    assert.deepEqual(namespaces.selectableFields?.(ns()), { 'status.phase': '' });
  });

  it('spec 2.1/2.3: every core type has the common object shape, a <Kind>List and its own storage', () => {
    assert.deepEqual(
      coreTypes.map((t) => t.plural),
      ['namespaces', 'configmaps', 'secrets', 'serviceaccounts', 'pods', 'nodes', 'services', 'endpoints'],
    );
    for (const t of coreTypes) {
      const props = t.schema.properties ?? {};
      assert.ok(props.apiVersion && props.kind && props.metadata, t.kind);
      assert.equal(t.listKind, `${t.kind}List`);
      assert.equal(t.group, '');
      assert.equal(t.version, 'v1');
      assert.equal(t.storageKey, `core/${t.plural}`);
    }
    assert.deepEqual(coreTypes.filter((t) => !t.namespaced).map((t) => t.kind), ['Namespace', 'Node']);
  });
});

describe('namespace lifecycle hooks (spec 3.1)', () => {
  it('spec.finalizers keep a deleted namespace; terminating sets phase Terminating; /finalize changes only the finalizers', () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' }, spec: { finalizers: ['orch'] }, status: { phase: 'Active' } };
    assert.deepEqual(namespaces.strategy.pendingFinalizers?.(ns), ['orch']);
    const t = structuredClone(ns);
    namespaces.strategy.prepareForTerminating?.(t);
    assert.equal(t.status.phase, 'Terminating');
    const next = { ...structuredClone(ns), spec: { finalizers: [] }, status: { phase: 'Bogus' } };
    namespaces.strategy.prepareForFinalizeUpdate?.(next, ns);
    assert.deepEqual(next.spec.finalizers, []);
    assert.equal(next.status.phase, 'Active');
  });
});
