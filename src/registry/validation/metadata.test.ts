import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldError } from '../../errors/index.js';
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from './index.js';

const NS: ObjectMetaOptions = { namespaced: true, nameRule: 'subdomain' };
const CLUSTER: ObjectMetaOptions = { namespaced: false, nameRule: 'path-segment' };

/** Compact form for table expectations: `type field` plus an optional message fragment check. */
const brief = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);

interface Case {
  title: string;
  meta: unknown;
  opts?: ObjectMetaOptions;
  want: string[];
  /** Fragments the messages must contain, in order of the errors. */
  messages?: string[];
}

const cases: Case[] = [
  { title: 'minimal namespaced object', meta: { name: 'web', namespace: 'default' }, want: [] },
  { title: 'minimal cluster object', meta: { name: 'system:admin' }, opts: CLUSTER, want: [] },
  {
    title: 'name missing without generateName',
    meta: { namespace: 'default' },
    want: ['FieldValueRequired metadata.name'],
    messages: ['Required value: name or generateName is required'],
  },
  { title: 'empty name counts as missing', meta: { name: '', namespace: 'a' }, want: ['FieldValueRequired metadata.name'] },
  { title: 'generateName alone is enough', meta: { generateName: 'web-', namespace: 'default' }, want: [] },
  { title: 'requireName false allows no name', meta: { namespace: 'default' }, opts: { ...NS, requireName: false }, want: [] },
  {
    title: 'bad generateName',
    meta: { generateName: 'Web-', namespace: 'default' },
    want: ['FieldValueInvalid metadata.generateName'],
    messages: ['Invalid value: "Web-": a lowercase RFC 1123 subdomain'],
  },
  {
    title: 'bad subdomain name',
    meta: { name: 'Web', namespace: 'default' },
    want: ['FieldValueInvalid metadata.name'],
    messages: ['Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of'],
  },
  {
    title: 'label rule rejects dots',
    meta: { name: 'a.b', namespace: 'default' },
    opts: { namespaced: true, nameRule: 'label' },
    want: ['FieldValueInvalid metadata.name'],
    messages: ['must not contain dots'],
  },
  {
    title: 'path-segment rule rejects slash',
    meta: { name: 'a/b' },
    opts: CLUSTER,
    want: ['FieldValueInvalid metadata.name'],
    messages: ["may not contain '/'"],
  },
  {
    title: 'namespace required on namespaced types',
    meta: { name: 'a' },
    want: ['FieldValueRequired metadata.namespace'],
    messages: ['Required value'],
  },
  {
    title: 'namespace must be a DNS label',
    meta: { name: 'a', namespace: 'my.ns' },
    want: ['FieldValueInvalid metadata.namespace'],
    messages: ['must not contain dots'],
  },
  {
    title: 'namespace forbidden on cluster types',
    meta: { name: 'a', namespace: 'default' },
    opts: CLUSTER,
    want: ['FieldValueForbidden metadata.namespace'],
    messages: ['Forbidden: not allowed on this type'],
  },
  { title: 'metadata absent', meta: undefined, want: ['FieldValueRequired metadata.name', 'FieldValueRequired metadata.namespace'] },
  { title: 'metadata not an object', meta: 'x', want: ['FieldValueTypeInvalid metadata'] },
  { title: 'metadata an array', meta: [], want: ['FieldValueTypeInvalid metadata'] },
  { title: 'name of the wrong type', meta: { name: 5, namespace: 'a' }, want: ['FieldValueTypeInvalid metadata.name'] },
  {
    title: 'good labels',
    meta: { name: 'a', namespace: 'b', labels: { app: 'web', 'example.com/tier': '', 'x_y.z': 'A-1' } },
    want: [],
  },
  {
    title: 'bad label key',
    meta: { name: 'a', namespace: 'b', labels: { 'a/b/c': 'v' } },
    want: ['FieldValueInvalid metadata.labels'],
    messages: ['Invalid value: "a/b/c": a qualified name must consist of'],
  },
  {
    title: 'bad label value',
    meta: { name: 'a', namespace: 'b', labels: { app: '-web' } },
    want: ['FieldValueInvalid metadata.labels'],
    messages: ['Invalid value: "-web": a valid label must be an empty string'],
  },
  {
    title: 'label value too long',
    meta: { name: 'a', namespace: 'b', labels: { app: 'v'.repeat(64) } },
    want: ['FieldValueInvalid metadata.labels'],
    messages: ['must be no more than 63 characters'],
  },
  {
    title: 'labels not a map',
    meta: { name: 'a', namespace: 'b', labels: ['x'] },
    want: ['FieldValueTypeInvalid metadata.labels'],
  },
  {
    title: 'label value not a string',
    meta: { name: 'a', namespace: 'b', labels: { n: 1 } },
    want: ['FieldValueTypeInvalid metadata.labels[n]'],
  },
  { title: 'null labels are empty', meta: { name: 'a', namespace: 'b', labels: null }, want: [] },
  {
    title: 'annotation keys ignore case, values are free-form',
    meta: { name: 'a', namespace: 'b', annotations: { 'Example.COM/Note': 'any thing /%' } },
    want: [],
  },
  {
    title: 'bad annotation key',
    meta: { name: 'a', namespace: 'b', annotations: { 'bad key': 'v' } },
    want: ['FieldValueInvalid metadata.annotations'],
    messages: ['Invalid value: "bad key"'],
  },
  {
    title: 'annotations over 256 KiB',
    meta: { name: 'a', namespace: 'b', annotations: { a: 'x'.repeat(262144) } },
    want: ['FieldValueTooLong metadata.annotations'],
    messages: ['may not be more than 262144 bytes'],
  },
  {
    title: 'annotations exactly 256 KiB',
    meta: { name: 'a', namespace: 'b', annotations: { a: 'x'.repeat(262143) } },
    want: [],
  },
  {
    title: 'annotation value not a string',
    meta: { name: 'a', namespace: 'b', annotations: { a: true } },
    want: ['FieldValueTypeInvalid metadata.annotations[a]'],
  },
  {
    title: 'good finalizers',
    meta: { name: 'a', namespace: 'b', finalizers: ['example.com/cleanup', 'orphan'] },
    want: [],
  },
  {
    title: 'bad and duplicate finalizers',
    meta: { name: 'a', namespace: 'b', finalizers: ['a/b/c', 'x', 'x'] },
    want: ['FieldValueInvalid metadata.finalizers', 'FieldValueDuplicate metadata.finalizers[2]'],
    messages: ['Invalid value: "a/b/c"', 'Duplicate value: "x"'],
  },
  {
    title: 'finalizers not an array',
    meta: { name: 'a', namespace: 'b', finalizers: 'x' },
    want: ['FieldValueTypeInvalid metadata.finalizers'],
  },
  {
    title: 'finalizer not a string',
    meta: { name: 'a', namespace: 'b', finalizers: [1] },
    want: ['FieldValueTypeInvalid metadata.finalizers[0]'],
  },
  {
    title: 'good owner reference',
    meta: {
      name: 'a',
      namespace: 'b',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
    },
    want: [],
  },
  {
    title: 'owner reference missing fields',
    meta: { name: 'a', namespace: 'b', ownerReferences: [{}] },
    want: [
      'FieldValueInvalid metadata.ownerReferences[0].apiVersion',
      'FieldValueInvalid metadata.ownerReferences[0].kind',
      'FieldValueInvalid metadata.ownerReferences[0].name',
      'FieldValueInvalid metadata.ownerReferences[0].uid',
    ],
    messages: ['version must not be empty', 'kind must not be empty', 'name must not be empty', 'uid must not be empty'],
  },
  {
    title: 'owner reference apiVersion without version',
    meta: { name: 'a', namespace: 'b', ownerReferences: [{ apiVersion: 'apps/', kind: 'K', name: 'n', uid: 'u' }] },
    want: ['FieldValueInvalid metadata.ownerReferences[0].apiVersion'],
  },
  {
    title: 'two controller owner references',
    meta: {
      name: 'a',
      namespace: 'b',
      ownerReferences: [
        { apiVersion: 'v1', kind: 'A', name: 'x', uid: '1', controller: true },
        { apiVersion: 'v1', kind: 'B', name: 'y', uid: '2', controller: true },
      ],
    },
    want: ['FieldValueInvalid metadata.ownerReferences'],
    messages: ['Only one reference can have Controller set to true. Found "true" in references for A/x and B/y'],
  },
  {
    title: 'owner reference of the wrong shape',
    meta: { name: 'a', namespace: 'b', ownerReferences: ['x'] },
    want: ['FieldValueTypeInvalid metadata.ownerReferences[0]'],
  },
  {
    title: 'negative generation',
    meta: { name: 'a', namespace: 'b', generation: -1 },
    want: ['FieldValueInvalid metadata.generation'],
  },
];

describe('spec 2.1 validateObjectMeta', () => {
  for (const c of cases) {
    test(c.title, () => {
      const errs = validateObjectMeta(c.meta, c.opts ?? NS);
      assert.deepEqual(brief(errs), c.want, JSON.stringify(errs, null, 1));
      for (const [i, fragment] of (c.messages ?? []).entries()) {
        assert.ok(errs[i]?.message.includes(fragment), `error ${i} "${errs[i]?.message}" lacks "${fragment}"`);
      }
    });
  }

  test('a custom path prefixes every field', () => {
    const errs = validateObjectMeta({ labels: { a: '-' } }, NS, 'spec.template.metadata');
    assert.deepEqual(brief(errs), [
      'FieldValueInvalid spec.template.metadata.labels',
      'FieldValueRequired spec.template.metadata.name',
      'FieldValueRequired spec.template.metadata.namespace',
    ]);
  });

  test('never throws on hostile input', () => {
    for (const meta of [0, true, Symbol.iterator.toString(), { labels: Object.create(null) }, { __proto__: { name: 1 } }]) {
      assert.doesNotThrow(() => validateObjectMeta(meta, NS));
    }
  });
});

const old = {
  name: 'web',
  namespace: 'default',
  uid: 'u-1',
  resourceVersion: '5',
  creationTimestamp: '2024-01-02T03:04:05Z',
  finalizers: ['a.io/x'],
};

interface UpdateCase {
  title: string;
  change: Record<string, unknown>;
  oldMeta?: Record<string, unknown>;
  want: string[];
}

const updateCases: UpdateCase[] = [
  { title: 'unchanged identity', change: {}, want: [] },
  { title: 'labels may change', change: { labels: { a: 'b' }, resourceVersion: '9' }, want: [] },
  { title: 'name is immutable', change: { name: 'other' }, want: ['FieldValueInvalid metadata.name'] },
  { title: 'namespace is immutable', change: { namespace: 'other' }, want: ['FieldValueInvalid metadata.namespace'] },
  { title: 'uid is immutable', change: { uid: 'u-2' }, want: ['FieldValueInvalid metadata.uid'] },
  { title: 'removing uid is a change', change: { uid: undefined }, want: ['FieldValueInvalid metadata.uid'] },
  {
    title: 'creationTimestamp is immutable',
    change: { creationTimestamp: '2025-01-01T00:00:00Z' },
    want: ['FieldValueInvalid metadata.creationTimestamp'],
  },
  { title: 'same instant spelled differently', change: { creationTimestamp: '2024-01-02T03:04:05.000Z' }, want: [] },
  {
    title: 'shared checks still run',
    change: { labels: { a: '-' }, finalizers: ['x', 'x'] },
    want: ['FieldValueInvalid metadata.labels', 'FieldValueDuplicate metadata.finalizers[1]'],
  },
  {
    title: 'no new finalizers while deleting',
    oldMeta: { ...old, deletionTimestamp: '2024-02-02T00:00:00Z' },
    change: { deletionTimestamp: '2024-02-02T00:00:00Z', finalizers: ['a.io/x', 'b.io/y'] },
    want: ['FieldValueForbidden metadata.finalizers'],
  },
  {
    title: 'finalizers may be removed while deleting',
    oldMeta: { ...old, deletionTimestamp: '2024-02-02T00:00:00Z' },
    change: { deletionTimestamp: '2024-02-02T00:00:00Z', finalizers: [] },
    want: [],
  },
];

describe('spec 2.1 validateObjectMetaUpdate', () => {
  for (const c of updateCases) {
    test(c.title, () => {
      const errs = validateObjectMetaUpdate({ ...old, ...c.change }, c.oldMeta ?? old);
      assert.deepEqual(brief(errs), c.want, JSON.stringify(errs, null, 1));
    });
  }

  test('immutable message names the new value', () => {
    const [e] = validateObjectMetaUpdate({ ...old, name: 'other' }, old);
    assert.equal(e?.message, 'Invalid value: "other": field is immutable');
  });

  test('new finalizers are listed', () => {
    const oldMeta = { ...old, deletionTimestamp: '2024-02-02T00:00:00Z' };
    const [e] = validateObjectMetaUpdate({ ...oldMeta, finalizers: ['z.io/b', 'a.io/x', 'y.io/a'] }, oldMeta);
    assert.equal(
      e?.message,
      'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ["y.io/a","z.io/b"]',
    );
  });

  test('with options, name and scope rules run too', () => {
    const errs = validateObjectMetaUpdate({ ...old, namespace: undefined }, { ...old, namespace: undefined }, 'metadata', NS);
    assert.deepEqual(brief(errs), ['FieldValueRequired metadata.namespace']);
  });

  test('a non-object new metadata is a type error', () => {
    assert.deepEqual(brief(validateObjectMetaUpdate(7, old)), ['FieldValueTypeInvalid metadata']);
  });
});
