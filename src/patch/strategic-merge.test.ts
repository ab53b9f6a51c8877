import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors/index.js';
import { anyObject, arrayOf, int32, intOrString, mapList, obj, objectSchema, str } from '../registry/schema.js';
import type { Schema } from '../api/index.js';
import { applyStrategicMergePatch } from './index.js';

/** A small Pod-like schema built with the registry's builders. */
const container = obj({
  name: str(),
  image: str(),
  args: arrayOf(str()),
  env: mapList(obj({ name: str(), value: str() }), 'name'),
  ports: mapList(obj({ containerPort: int32(), protocol: str() }), 'containerPort'),
});
const schema: Schema = objectSchema('Pod-like test type', {
  spec: obj({
    containers: mapList(container, 'name'),
    volumes: mapList(obj({ name: str(), emptyDir: anyObject(), hostPath: obj({ path: str() }) }), 'name'),
    tolerations: arrayOf(obj({ key: str(), value: str(), effect: str() })),
    strategy: {
      ...obj({ type: str(), rollingUpdate: obj({ maxSurge: intOrString(), maxUnavailable: intOrString() }) }),
      'x-kubernetes-patch-strategy': 'retainKeys',
    },
    extra: anyObject(),
    // A map list keyed by two fields cannot merge by one merge key: replaced.
    pairs: arrayOf(obj({ a: str(), b: str() }), '', { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['a', 'b'] }),
  }),
});

/** Loosely typed on purpose: each case edits a copy into its expected result. */
type Json = any;
const pod = (): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'web', tier: 'fe' }, finalizers: ['a', 'b'] },
  spec: {
    containers: [
      {
        name: 'web',
        image: 'nginx:1',
        args: ['--a', '--b'],
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        ports: [
          { containerPort: 80, protocol: 'TCP' },
          { containerPort: 443, protocol: 'TCP' },
        ],
      },
      { name: 'side', image: 'busybox' },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
    tolerations: [{ key: 'dedicated', value: 'test-team', effect: 'NoSchedule' }],
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    extra: { list: [{ name: 'x', n: 1 }], keep: true },
    pairs: [{ a: '1', b: '1' }],
  },
});

/** [title, patch, edit that turns pod() into the expected result] */
const cases: [string, unknown, (p: Json) => void][] = [
  [
    'containers merge by name: update the image of one container in place',
    { spec: { containers: [{ name: 'side', image: 'busybox:2' }] } },
    (p) => void (p.spec.containers[1].image = 'busybox:2'),
  ],
  [
    'containers merge by name: a new container lands before server-only ones (kubectl patch docs example)',
    { spec: { containers: [{ name: 'log', image: 'tail' }] } },
    (p) => void p.spec.containers.unshift({ name: 'log', image: 'tail' }),
  ],
  [
    'containers merge by name: updated and new items keep patch order after earlier server-only items',
    { spec: { containers: [{ name: 'side', image: 'b2' }, { name: 'log' }] } },
    (p) => void p.spec.containers.splice(1, 1, { name: 'side', image: 'b2' }, { name: 'log' }),
  ],
  [
    'containers: $patch: delete removes the item with that merge key',
    { spec: { containers: [{ name: 'web', $patch: 'delete' }] } },
    (p) => void p.spec.containers.shift(),
  ],
  [
    'env merges by name: change one, add one, null removes a field of an item',
    { spec: { containers: [{ name: 'web', env: [{ name: 'A', value: null }, { name: 'B', value: 'two' }, { name: 'C', value: '3' }] }] } },
    (p) => void (p.spec.containers[0].env = [{ name: 'A' }, { name: 'B', value: 'two' }, { name: 'C', value: '3' }]),
  ],
  [
    'ports merge by containerPort (an integer key)',
    { spec: { containers: [{ name: 'web', ports: [{ containerPort: 443, protocol: 'UDP' }, { containerPort: 8080 }] }] } },
    (p) =>
      void p.spec.containers[0].ports.splice(1, 1, { containerPort: 443, protocol: 'UDP' }, { containerPort: 8080 }),
  ],
  [
    'primitive list without a patch strategy is replaced (container args)',
    { spec: { containers: [{ name: 'web', args: ['--c'] }] } },
    (p) => void (p.spec.containers[0].args = ['--c']),
  ],
  [
    'list of maps without a patch strategy is replaced (tolerations, as in the kubectl patch docs)',
    { spec: { tolerations: [{ key: 'disktype', value: 'ssd', effect: 'NoSchedule' }] } },
    (p) => void (p.spec.tolerations = [{ key: 'disktype', value: 'ssd', effect: 'NoSchedule' }]),
  ],
  [
    'metadata.finalizers (set list) merges as a set: union without duplicates',
    { metadata: { finalizers: ['b', 'c'] } },
    (p) => void (p.metadata.finalizers = ['a', 'b', 'c']),
  ],
  [
    'metadata.finalizers: a value new to the set goes ahead of server-only values',
    { metadata: { finalizers: ['z', 'z'] } },
    (p) => void (p.metadata.finalizers = ['z', 'a', 'b']),
  ],
  [
    '$patch: replace on a map replaces the whole map',
    { metadata: { labels: { $patch: 'replace', only: 'x' } } },
    (p) => void (p.metadata.labels = { only: 'x' }),
  ],
  [
    '$patch: replace as a list item replaces the whole list with the other items',
    { spec: { containers: [{ name: 'new', image: 'i', env: [{ name: 'X', value: null }] }, { $patch: 'replace' }] } },
    (p) => void (p.spec.containers = [{ name: 'new', image: 'i', env: [{ name: 'X' }] }]),
  ],
  [
    '$patch: delete on a map deletes the map; $patch: merge is the default',
    { metadata: { labels: { $patch: 'delete' } }, spec: { strategy: { $patch: 'merge', type: 'Recreate', $retainKeys: ['type'] } } },
    (p) => {
      delete p.metadata.labels;
      p.spec.strategy = { type: 'Recreate' };
    },
  ],
  [
    '$deleteFromPrimitiveList removes values from a primitive list',
    { metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'nope'] } },
    (p) => void (p.metadata.finalizers = ['b']),
  ],
  [
    '$deleteFromPrimitiveList runs before the patch list merges in',
    { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], finalizers: ['c'] } },
    (p) => void (p.metadata.finalizers = ['c', 'b']),
  ],
  [
    '$setElementOrder on a map list reorders, alone or with a patch list',
    { spec: { '$setElementOrder/containers': [{ name: 'side' }, { name: 'web' }], containers: [{ name: 'web', image: 'n2' }] } },
    (p) => void (p.spec.containers = [p.spec.containers[1], { ...p.spec.containers[0], image: 'n2' }]),
  ],
  [
    '$setElementOrder on a primitive list reorders; unknown entries are ignored',
    { metadata: { '$setElementOrder/finalizers': ['b', 'ghost', 'a'] } },
    (p) => void (p.metadata.finalizers = ['b', 'a']),
  ],
  [
    '$setElementOrder: server-only items keep their place relative to ordered ones',
    { spec: { '$setElementOrder/containers': [{ name: 'web' }, { name: 'log' }], containers: [{ name: 'log' }] } },
    (p) => void p.spec.containers.splice(1, 0, { name: 'log' }),
  ],
  [
    '$retainKeys keeps only the listed keys after the merge (deployment strategy docs example)',
    { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    (p) => void (p.spec.strategy = { type: 'Recreate' }),
  ],
  [
    'null deletes map keys and whole lists',
    { metadata: { labels: { tier: null, missing: null } }, spec: { volumes: null } },
    (p) => {
      p.metadata.labels = { app: 'web' };
      delete p.spec.volumes;
    },
  ],
  [
    'lists under free-form or unknown fields are replaced; their maps still merge',
    { spec: { extra: { list: [{ name: 'y' }], more: 1 }, unknownList: [{ name: 'q', drop: null }] } },
    (p) => {
      p.spec.extra = { list: [{ name: 'y' }], keep: true, more: 1 };
      p.spec.unknownList = [{ name: 'q' }];
    },
  ],
  [
    'directives inside new values are consumed, never stored',
    {
      spec: {
        containers: [{ name: 'log', env: [{ name: 'GONE', $patch: 'delete' }, { name: 'K', value: 'v' }] }],
        newMap: { a: { $patch: 'delete' }, b: 1 },
      },
    },
    (p) => {
      p.spec.containers.unshift({ name: 'log', env: [{ name: 'K', value: 'v' }] });
      p.spec.newMap = { b: 1 };
    },
  ],
  [
    'an empty patch list leaves a merged list as it is',
    { spec: { containers: [] }, metadata: { finalizers: [] } },
    () => {},
  ],
  [
    'a map list with two map keys and no patch strategy is replaced',
    { spec: { pairs: [{ a: '2', b: '2' }] } },
    (p) => void (p.spec.pairs = [{ a: '2', b: '2' }]),
  ],
  [
    '$setElementOrder also orders a replaced primitive list',
    { spec: { containers: [{ name: 'web', '$setElementOrder/args': ['--b', '--a'] }] } },
    (p) => void (p.spec.containers[0].args = ['--b', '--a']),
  ],
  [
    'other $-prefixed keys are ordinary fields',
    { spec: { extra: { $ref: '#/defs/x' } } },
    (p) => void (p.spec.extra = { ...p.spec.extra, $ref: '#/defs/x' }),
  ],
];

describe('spec 4.3 strategic merge patch: merge semantics', () => {
  for (const [title, patch, edit] of cases) {
    test(`spec 4.3: ${title}`, () => {
      const expected = pod();
      edit(expected);
      assert.deepEqual(applyStrategicMergePatch(pod(), patch, schema), expected);
    });
  }

  test('spec 4.3: $patch: replace at the root replaces the whole object', () => {
    assert.deepEqual(applyStrategicMergePatch(pod(), { $patch: 'replace', kind: 'Pod', x: null }, schema), { kind: 'Pod' });
  });

  test('spec 4.3: a missing or non-object original is treated as empty', () => {
    const patch = { metadata: { finalizers: ['a'] }, spec: { containers: [{ name: 'c' }] } };
    assert.deepEqual(applyStrategicMergePatch(undefined, patch, schema), patch);
    assert.deepEqual(applyStrategicMergePatch([1], patch, schema), patch);
  });
});

const deepFreeze = <T>(v: T): T => {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
};
const objectsOf = (v: unknown, into = new Set<object>()): Set<object> => {
  if (typeof v === 'object' && v !== null) {
    into.add(v);
    for (const x of Object.values(v)) objectsOf(x, into);
  }
  return into;
};

describe('spec 4.3 strategic merge patch: purity', () => {
  test('spec 4.3: inputs are never mutated and the result shares no references with them', () => {
    const original = deepFreeze(pod());
    const patch = deepFreeze({
      metadata: { labels: { tier: null }, finalizers: ['c'] },
      spec: { containers: [{ name: 'web', env: [{ name: 'Z', value: 'z' }] }, { name: 'n', ports: [{ containerPort: 1 }] }] },
    });
    const result = applyStrategicMergePatch(original, patch, schema);
    const shared = [...objectsOf(result)].filter((o) => objectsOf(original).has(o) || objectsOf(patch).has(o));
    assert.deepEqual(shared, []);
  });

  test('spec 4.3: a __proto__ key in the patch becomes an own field', () => {
    const result = applyStrategicMergePatch({}, JSON.parse('{"spec":{"__proto__":{"x":1}}}'), schema) as { spec: object };
    assert.deepEqual(Object.getOwnPropertyNames(result.spec), ['__proto__']);
    assert.equal(Object.getPrototypeOf(result.spec), Object.prototype);
  });
});

/** [title, patch, text the 400 message must contain (the path)] */
const malformed: [string, unknown, string][] = [
  ['$patch: bogus on a map', { metadata: { labels: { $patch: 'bogus' } } }, 'metadata.labels.$patch'],
  ['$patch: bogus in a list item', { spec: { containers: [{ name: 'web', $patch: 'bogus' }] } }, 'spec.containers[0].$patch'],
  ['$patch not a string', { spec: { $patch: 1 } }, 'spec.$patch'],
  ['merge key missing in a list item', { spec: { containers: [{ name: 'web' }, { image: 'x' }] } }, 'spec.containers[1]'],
  ['merge key missing in a $patch: delete item', { spec: { containers: [{ $patch: 'delete' }] } }, 'spec.containers[0]'],
  ['primitive in a merge-keyed list', { spec: { containers: ['web'] } }, 'spec.containers'],
  ['$setElementOrder value not a list', { spec: { '$setElementOrder/containers': { name: 'web' } } }, 'spec.$setElementOrder/containers'],
  ['$setElementOrder entry without the merge key', { spec: { '$setElementOrder/containers': [{ image: 'x' }] } }, 'spec.$setElementOrder/containers[0]'],
  ['$setElementOrder with a non-list field value', { spec: { '$setElementOrder/strategy': [], strategy: {} } }, 'spec.strategy'],
  ['$deleteFromPrimitiveList value not a list', { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }, 'metadata.$deleteFromPrimitiveList/finalizers'],
  ['$deleteFromPrimitiveList with map values', { metadata: { '$deleteFromPrimitiveList/finalizers': [{}] } }, 'metadata.$deleteFromPrimitiveList/finalizers'],
  ['$deleteFromPrimitiveList on a list of maps', { spec: { '$deleteFromPrimitiveList/containers': ['web'] } }, 'spec.containers'],
  ['$retainKeys not a list of names', { spec: { strategy: { $retainKeys: 'type' } } }, 'spec.strategy.$retainKeys'],
  ['$retainKeys missing a field the patch sets', { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, 'spec.strategy.rollingUpdate'],
];

describe('spec 4.3 strategic merge patch: malformed patches are 400', () => {
  for (const [title, patch, where] of malformed) {
    test(`spec 4.3: ${title}`, () => {
      assert.throws(
        () => applyStrategicMergePatch(pod(), patch, schema),
        (e: unknown) => e instanceof StatusError && e.code === 400 && e.reason === 'BadRequest' && e.message.includes(where),
      );
    });
  }

  for (const patch of [null, [], 'x', 42, true]) {
    test(`spec 4.3: a patch that is not a JSON object (${JSON.stringify(patch)})`, () => {
      assert.throws(
        () => applyStrategicMergePatch(pod(), patch, schema),
        (e: unknown) => e instanceof StatusError && e.code === 400 && /JSON object/.test(e.message),
      );
    });
  }
});
