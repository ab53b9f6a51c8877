import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conditionTime, deletionConditions, mergeConditions, type DeletionFindings } from './conditions.js';
import { gatherFindings } from './content.js';
import { remainingContentDelay } from './controller.js';
import { parseGroupVersion, selectDeletable } from './discovery.js';

const none: DeletionFindings = { discoveryFailures: [], parseFailures: [], contentFailures: [], remaining: new Map(), finalizers: new Map() };
const summary = (f: DeletionFindings) => deletionConditions(f).map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message}`);

describe('namespace deletion conditions (spec 3.1; reference behaviour)', () => {
  const cases: [string, DeletionFindings, string[]][] = [
    [
      'all clear',
      none,
      [
        'NamespaceDeletionDiscoveryFailure=False/ResourcesDiscovered: All resources successfully discovered',
        'NamespaceDeletionGroupVersionParsingFailure=False/ParsedGroupVersions: All group versions successfully parsed',
        'NamespaceDeletionContentFailure=False/ContentDeleted: All content successfully deleted, may be waiting on finalization',
        'NamespaceContentRemaining=False/ContentRemoved: All content successfully removed',
        'NamespaceFinalizersRemaining=False/ContentHasNoFinalizers: All content-preserving finalizers finished',
      ],
    ],
    [
      'everything failing, counts sorted by name',
      {
        discoveryFailures: ['a.io/v1: boom'],
        parseFailures: ['x/y/z'],
        contentFailures: ['pods: denied', 'widgets.example.com: gone'],
        remaining: new Map([['widgets.example.com', 2], ['configmaps', 1]]),
        finalizers: new Map([['z.io/f', 1], ['a.io/f', 2]]),
      },
      [
        'NamespaceDeletionDiscoveryFailure=True/DiscoveryFailed: Discovery failed for some groups, 1 failing: a.io/v1: boom',
        'NamespaceDeletionGroupVersionParsingFailure=True/GroupVersionParsingFailed: Group versions that could not be parsed: x/y/z',
        'NamespaceDeletionContentFailure=True/ContentDeletionFailed: Failed to delete all resource types, 2 remaining: pods: denied, widgets.example.com: gone',
        'NamespaceContentRemaining=True/SomeResourcesRemain: Some resources are remaining: configmaps has 1 resource instances, widgets.example.com has 2 resource instances',
        'NamespaceFinalizersRemaining=True/SomeFinalizersRemain: Some content in the namespace has finalizers remaining: a.io/f in 2 resource instances, z.io/f in 1 resource instances',
      ],
    ],
  ];
  for (const [name, findings, want] of cases) it(`reference behaviour: ${name}`, () => assert.deepEqual(summary(findings), want));

  it('reference behaviour: a merge keeps unchanged conditions (and their times) and other types, and stamps changed ones', () => {
    const t0 = conditionTime(Date.UTC(2024, 0, 1));
    const first = mergeConditions([{ type: 'Other', status: 'True' }], deletionConditions(none), t0);
    assert.equal(first.changed, true);
    assert.equal(first.conditions.length, 6);
    assert.equal(first.conditions[0]?.type, 'Other');
    assert.equal(t0, '2024-01-01T00:00:00Z');
    const same = mergeConditions(first.conditions, deletionConditions(none), 'later');
    assert.equal(same.changed, false);
    const moved = mergeConditions(first.conditions, deletionConditions({ ...none, remaining: new Map([['pods', 1]]) }), 'later');
    assert.equal(moved.changed, true);
    assert.deepEqual(
      moved.conditions.filter((c) => c.lastTransitionTime === 'later').map((c) => c.type),
      ['NamespaceContentRemaining'],
    );
  });
});

describe('namespace controller discovery (spec 3.1)', () => {
  it('reference behaviour: namespaced, listable and deletable resources once each, in the most preferred version serving them', () => {
    const got = selectDeletable([
      {
        group: '',
        versions: [
          {
            version: 'v1',
            resources: [
              { name: 'pods', namespaced: true, verbs: ['list', 'delete', 'deletecollection'] },
              { name: 'pods/status', namespaced: true, verbs: ['get', 'patch'] },
              { name: 'bindings', namespaced: true, verbs: ['create'] },
              { name: 'nodes', namespaced: false, verbs: ['list', 'delete'] },
              { name: 'onlydelete', namespaced: true, verbs: ['list', 'delete'] },
              { name: 'nolist', namespaced: true, verbs: ['delete', 'deletecollection'] },
            ],
          },
        ],
      },
      {
        group: 'example.com',
        versions: [
          { version: 'v2', resources: [{ name: 'widgets', namespaced: true, verbs: ['list', 'deletecollection'] }] },
          { version: 'v1', resources: [{ name: 'widgets', namespaced: true, verbs: ['list', 'delete'] }, { name: 'gadgets', namespaced: true, verbs: ['list', 'delete'] }] },
        ],
      },
    ]);
    assert.deepEqual(
      got.map((r) => `${r.group}/${r.version}/${r.plural}`),
      ['/v1/pods', '/v1/onlydelete', 'example.com/v2/widgets', 'example.com/v1/gadgets'],
    );
  });

  const gvs: [string, ReturnType<typeof parseGroupVersion>][] = [
    ['v1', { group: '', version: 'v1' }],
    ['apps/v1', { group: 'apps', version: 'v1' }],
    ['a/b/c', undefined],
    ['apps/', undefined],
    ['', undefined],
  ];
  for (const [gv, want] of gvs) it(`reference behaviour: group version ${JSON.stringify(gv)} parses as ${JSON.stringify(want)}`, () => assert.deepEqual(parseGroupVersion(gv), want));

  it('reference behaviour: findings gather failures, counts and finalizers per resource', () => {
    const resources = [
      { group: '', version: 'v1', plural: 'configmaps', verbs: [] },
      { group: 'example.com', version: 'v1', plural: 'widgets', verbs: [] },
    ];
    const f = gatherFindings({ resources, discoveryFailures: ['d'], parseFailures: [] }, [
      { remaining: 2, finalizers: new Map([['a/f', 2]]) },
      { remaining: 1, finalizers: new Map([['a/f', 1]]), error: 'boom' },
    ]);
    assert.deepEqual([...f.remaining], [['configmaps', 2], ['widgets.example.com', 1]]);
    assert.deepEqual([...f.finalizers], [['a/f', 3]]);
    assert.deepEqual(f.contentFailures, ['widgets.example.com: boom']);
    assert.deepEqual(f.discoveryFailures, ['d']);
  });

  it('reference behaviour: content still going is looked at again after growing pauses, capped', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5, 10].map(remainingContentDelay), [250, 500, 1000, 2000, 4000, 5000, 5000]);
  });
});
