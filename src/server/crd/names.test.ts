import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Crd } from '../../registry/custom/crd.js';
import { desiredStatus, withCondition } from './names.js';

const NOW = '2024-01-01T00:00:00Z';

function crd(name: string, names: Partial<Crd['spec']['names']>, accepted?: Crd['spec']['names']): Crd {
  return {
    metadata: { name },
    spec: { group: 'g.example.com', scope: 'Namespaced', names: { plural: 'ps', kind: 'K', ...names } as Crd['spec']['names'], versions: [{ name: 'v1', served: true, storage: true }] },
    ...(accepted ? { status: { acceptedNames: accepted, conditions: [] } } : {}),
  };
}

const cond = (s: ReturnType<typeof desiredStatus>, t: string) => s.conditions?.find((c) => c.type === t);

describe('CRD naming controller (reference behaviour)', () => {
  const other = crd('others.g.example.com', {}, { plural: 'others', singular: 'other', shortNames: ['ot'], kind: 'Other', listKind: 'OtherList' });
  const cases: [string, Partial<Crd['spec']['names']>, string | undefined][] = [
    ['no clash', { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList', shortNames: ['th'] }, undefined],
    ['plural taken', { plural: 'others', kind: 'Thing' }, 'PluralConflict'],
    ['singular taken by a short name', { plural: 'things', singular: 'ot', kind: 'Thing' }, 'SingularConflict'],
    ['short name taken', { plural: 'things', kind: 'Thing', shortNames: ['other'] }, 'ShortNamesConflict'],
    ['kind taken', { plural: 'things', kind: 'Other' }, 'KindConflict'],
    ['list kind taken', { plural: 'things', kind: 'Thing', listKind: 'OtherList' }, 'ListKindConflict'],
  ];
  for (const [title, names, reason] of cases) {
    it(`reference behaviour: ${title} -> ${reason ?? 'NamesAccepted True, Established True'}`, () => {
      const s = desiredStatus(crd('things.g.example.com', names), [other], NOW);
      assert.equal(cond(s, 'NamesAccepted')?.status, reason ? 'False' : 'True');
      assert.equal(cond(s, 'NamesAccepted')?.reason, reason ?? 'NoConflicts');
      assert.equal(cond(s, 'Established')?.status, reason ? 'False' : 'True');
      assert.deepEqual(s.storedVersions, ['v1']);
    });
  }

  it('reference behaviour: names of CRDs in other groups do not clash', () => {
    const elsewhere = { ...other, spec: { ...other.spec, group: 'h.example.com' } };
    const s = desiredStatus(crd('others.g.example.com', { plural: 'others', kind: 'Other' }), [elsewhere], NOW);
    assert.equal(cond(s, 'NamesAccepted')?.status, 'True');
    assert.equal(s.acceptedNames?.plural, 'others');
  });

  it('reference behaviour: a condition keeps its transition time while its status stays', () => {
    const first = withCondition([], { type: 'X', status: 'True' }, 'T1');
    assert.equal(withCondition(first, { type: 'X', status: 'True', reason: 'r' }, 'T2')[0]?.lastTransitionTime, 'T1');
    assert.equal(withCondition(first, { type: 'X', status: 'False' }, 'T2')[0]?.lastTransitionTime, 'T2');
  });
});
