import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../errors/index.js';
import { isActiveNamespace, isNamespaceTerminating } from './controller.js';

describe('serviceaccount controller decisions (reference behaviour)', () => {
  const cases: [string, Parameters<typeof isActiveNamespace>[0], boolean][] = [
    ['active', { metadata: { name: 'a' }, status: { phase: 'Active' } }, true],
    ['no status yet', { metadata: { name: 'a' } }, true],
    ['being deleted', { metadata: { name: 'a', deletionTimestamp: '2024-01-01T00:00:00Z' } }, false],
    ['Terminating', { metadata: { name: 'a' }, status: { phase: 'Terminating' } }, false],
    ['unknown', undefined, false],
  ];
  for (const [name, ns, want] of cases) it(`reference behaviour: a namespace ${name} ${want ? 'gets' : 'does not get'} content`, () => assert.equal(isActiveNamespace(ns), want));

  it('reference behaviour: only a 403 with the NamespaceTerminating cause counts as a terminating namespace', () => {
    const terminating = new StatusError(403, 'Forbidden', 'x', { causes: [{ reason: 'NamespaceTerminating', message: 'm' }] });
    assert.equal(isNamespaceTerminating(terminating), true);
    assert.equal(isNamespaceTerminating(new StatusError(403, 'Forbidden', 'x')), false);
    assert.equal(isNamespaceTerminating(new Error('x')), false);
  });
});
