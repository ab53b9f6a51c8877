import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/index.js';
import { DependencyGraph, type GraphNode } from './graph.js';
import { AbsentOwners, referenceDiff } from './identity.js';

type Ref = { apiVersion: string; kind: string; name: string; uid: string; blockOwnerDeletion?: boolean };
const obj = (uid: string, o: { ns?: string; owners?: Ref[]; finalizers?: string[]; deleting?: boolean; kind?: string } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: o.kind ?? 'ConfigMap',
  metadata: {
    name: `n-${uid}`,
    uid,
    ...(o.ns ? { namespace: o.ns } : {}),
    ...(o.owners ? { ownerReferences: o.owners } : {}),
    ...(o.finalizers ? { finalizers: o.finalizers } : {}),
    ...(o.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}),
  },
});
const ref = (uid: string, block?: boolean, kind = 'ConfigMap'): Ref => ({ apiVersion: 'v1', kind, name: `n-${uid}`, uid, ...(block !== undefined ? { blockOwnerDeletion: block } : {}) });

function recorder() {
  const log = { del: [] as string[], orphan: [] as string[], invalid: [] as string[] };
  const graph = new DependencyGraph({
    attemptToDelete: (n: GraphNode) => log.del.push(n.identity.uid),
    attemptToOrphan: (n: GraphNode) => log.orphan.push(n.identity.uid),
    invalidNamespaceReference: (d: GraphNode) => log.invalid.push(d.identity.uid),
  });
  return { graph, log };
}

describe('garbage collector graph (spec 3.1, reference behaviour)', () => {
  it('reference behaviour: an unseen owner becomes a virtual node queued for verification', () => {
    const { graph, log } = recorder();
    graph.observe(obj('d', { ns: 'a', owners: [ref('o')] }), undefined);
    assert.equal(graph.node('o')?.virtual, true);
    assert.deepEqual(log.del, ['o']);
    graph.observe(obj('o', { ns: 'a' }), undefined);
    assert.equal(graph.node('o')?.virtual, false);
  });

  it('spec 3.1: an owner leaving queues its dependents and records it as absent', () => {
    const { graph, log } = recorder();
    const owner = obj('o', { ns: 'a' });
    graph.observe(owner, undefined);
    graph.observe(obj('d1', { ns: 'a', owners: [ref('o')] }), undefined);
    graph.observe(obj('d2', { ns: 'a', owners: [ref('o')] }), undefined);
    graph.forget(owner);
    assert.deepEqual(log.del.sort(), ['d1', 'd2']);
    assert.ok(graph.absent.has(AbsentOwners.key(ref('o'), 'a')));
  });

  it('spec 3.1: starting foreground deletion queues the dependents and the owner; orphaning queues the owner', () => {
    const { graph, log } = recorder();
    const fg = obj('fg', { ns: 'a' });
    graph.observe(fg, undefined);
    graph.observe(obj('d', { ns: 'a', owners: [ref('fg', true)] }), undefined);
    graph.observe(obj('fg', { ns: 'a', deleting: true, finalizers: ['foregroundDeletion'] }), fg);
    assert.equal(graph.node('fg')?.deletingDependents, true);
    assert.deepEqual(log.del, ['d', 'fg']);
    assert.deepEqual(graph.blockingDependents(graph.node('fg') as GraphNode).map((n) => n.identity.uid), ['d']);
    const or = obj('or', { ns: 'a' });
    graph.observe(or, undefined);
    graph.observe(obj('or', { ns: 'a', deleting: true, finalizers: ['orphan'] }), or);
    assert.deepEqual(log.orphan, ['or']);
  });

  it('reference behaviour: a dependent dropping its blocking reference frees an owner waiting in the foreground', () => {
    const { graph, log } = recorder();
    graph.observe(obj('fg', { ns: 'a', deleting: true, finalizers: ['foregroundDeletion'] }), undefined);
    const dep = obj('d', { ns: 'a', owners: [ref('fg', true)] });
    graph.observe(dep, undefined);
    log.del.length = 0;
    graph.observe(obj('d', { ns: 'a', owners: [ref('fg', false)] }), dep);
    assert.deepEqual(log.del, ['fg']);
    assert.equal(graph.blockingDependents(graph.node('fg') as GraphNode).length, 0);
  });

  it('reference behaviour: a namespaced owner in another namespace is reported and its dependent checked', () => {
    const { graph, log } = recorder();
    graph.observe(obj('o', { ns: 'a' }), undefined);
    graph.observe(obj('d', { ns: 'b', owners: [ref('o')] }), undefined);
    assert.deepEqual(log.invalid, ['d']);
    assert.deepEqual(log.del, ['d']);
  });

  it('reference behaviour: a reference with the wrong kind to an observed uid queues the dependent', () => {
    const { graph, log } = recorder();
    graph.observe(obj('o', { ns: 'a' }), undefined);
    graph.observe(obj('d', { ns: 'a', owners: [ref('o', undefined, 'Secret')] }), undefined);
    assert.deepEqual(log.del, ['d']);
  });

  it('reference behaviour: confirming a virtual owner absent removes it and queues its dependents', () => {
    const { graph, log } = recorder();
    graph.observe(obj('d', { ns: 'a', owners: [ref('gone')] }), undefined);
    log.del.length = 0;
    graph.confirmAbsent({ apiVersion: 'v1', kind: 'ConfigMap', name: 'n-gone', namespace: 'a', uid: 'gone' });
    assert.equal(graph.node('gone'), undefined);
    assert.deepEqual(log.del, ['d']);
  });

  it('reference behaviour: owner reference diffs (added, removed, blockOwnerDeletion changed)', () => {
    const d = referenceDiff([ref('a', true), ref('b')], [ref('a', false), ref('c')]);
    assert.deepEqual(d.added.map((r) => r.uid), ['c']);
    assert.deepEqual(d.removed.map((r) => r.uid), ['b']);
    assert.deepEqual(d.changed.map((c) => c.now.uid), ['a']);
  });
});
