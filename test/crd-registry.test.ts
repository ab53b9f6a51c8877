import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry, watchFromCache, type ResourceType } from '../src/registry/index.js';
import { anyObject, objectSchema } from '../src/registry/schema.js';
import { openBackend } from '../src/storage/index.js';
import { changingDiscovery } from '../src/server/discovery.js';

/** A hand-made type, as a CRD would produce (no reference data). */
function gadget(group: string, plural = 'gadgets', version = 'v1'): ResourceType {
  return {
    group,
    version,
    kind: 'Gadget',
    listKind: 'GadgetList',
    plural,
    singular: plural.replace(/s$/, ''),
    shortNames: [],
    namespaced: true,
    subresources: [],
    schema: objectSchema('a gadget', { spec: anyObject() }),
    strategy: { nameRule: 'subdomain', validate: () => [], allowCreateOnUpdate: false, allowUnconditionalUpdate: true },
    tableColumns: [],
    storageKey: `${group}/${plural}`,
    custom: true,
  };
}

const watchRequest = { allowWatchBookmarks: false, watchListEnabled: false, timeoutMs: 60_000, bookmarkIntervalMs: 0, maxQueue: 1000 };

describe('run-time types of the registry (issue 18, part 1)', () => {
  it('reference behaviour: an added type is served, a removed one is not (404 for readers), and its open watches end', async () => {
    const backend = await openBackend({ type: 'memory' });
    const registry = new Registry(backend, []);
    const t = gadget('toys.example.com');
    const changes: string[] = [];
    registry.onTypesChange((c) => changes.push(`+${c.added.length} -${c.removed.length}`));
    registry.addTypes([t]);
    const store = registry.store(t.group, 'v1', 'gadgets');
    assert.ok(store);
    await store.create('default', { apiVersion: `${t.group}/v1`, kind: 'Gadget', metadata: { name: 'g' }, spec: {} });
    const reader = registry.reader(t);
    await reader.cacher.ready;
    const events = watchFromCache(reader, 'default', { ...watchRequest, resourceVersion: '0' }, new AbortController().signal);
    const first = await events.next();
    assert.match(String(first.value), /"ADDED"/);
    const ended = events.next();
    registry.removeTypes([t]);
    assert.deepEqual(await ended, { done: true, value: undefined });
    assert.equal(registry.store(t.group, 'v1', 'gadgets'), undefined);
    assert.throws(() => registry.reader(t), (e: { code?: number }) => e.code === 404);
    assert.deepEqual(registry.types, []);
    assert.deepEqual(changes, ['+1 -0', '+0 -1']);
    await backend.close();
  });

  it('reference behaviour: replacing a type in one change keeps its storage cache running', async () => {
    const backend = await openBackend({ type: 'memory' });
    const registry = new Registry(backend, []);
    const before = gadget('keep.example.com');
    registry.addTypes([before]);
    const cacher = registry.reader(before).cacher;
    const after = gadget('keep.example.com');
    registry.changeTypes({ add: [after], remove: [before] });
    assert.equal(registry.reader(after).cacher, cacher);
    assert.equal(registry.typeAt('keep.example.com', 'v1', 'gadgets'), after);
    registry.removeTypes([after]);
    await backend.close();
  });

  it('issue 18: with 500 custom types, lookups are by map and discovery rebuilds in well under a second', async () => {
    const backend = await openBackend({ type: 'memory' });
    const registry = new Registry(backend, []);
    const types = Array.from({ length: 500 }, (_, i) => gadget(`g${i}.example.com`));
    const discovery = changingDiscovery(() => registry.types, (f) => registry.onTypesChange(f));
    registry.addTypes(types);
    assert.equal(registry.types.length, 500);
    assert.equal(registry.typesOf('g250.example.com', 'gadgets')[0], types[250]);
    assert.equal(registry.typesOfKind('g499.example.com', 'v1', 'Gadget')[0], types[499]);
    const t0 = performance.now();
    for (let i = 0; i < 100_000; i++) registry.store(`g${i % 500}.example.com`, 'v1', 'gadgets');
    const lookups = performance.now() - t0;
    assert.ok(lookups < 500, `100,000 lookups took ${lookups} ms`);
    const t1 = performance.now();
    registry.addTypes([gadget('new.example.com')]);
    assert.equal(discovery.group('new.example.com')?.preferredVersion.version, 'v1');
    const rebuild = performance.now() - t1;
    assert.ok(rebuild < 200, `a change with discovery rebuild took ${rebuild} ms`);
    assert.equal(discovery.apis().groups.length, 501);
    await backend.close();
  });
});
