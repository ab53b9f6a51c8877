import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkPropagation, defaultPolicyOf, finalizersAfterDelete, type DefaultPolicy, type PropagationRequest } from './deletion-propagation.js';

describe('deletion propagation finalizers (spec 3.1, reference rules)', () => {
  const cases: [string, string[], PropagationRequest, DefaultPolicy, string[]][] = [
    ['no policy, Background type: unchanged', ['a'], {}, 'Background', ['a']],
    ['Foreground adds foregroundDeletion', [], { propagationPolicy: 'Foreground' }, 'Background', ['foregroundDeletion']],
    ['Orphan adds orphan after existing ones', ['a'], { propagationPolicy: 'Orphan' }, 'Background', ['a', 'orphan']],
    ['Background drops both', ['orphan', 'a'], { propagationPolicy: 'Background' }, 'Background', ['a']],
    ['Orphan replaces foregroundDeletion', ['foregroundDeletion'], { propagationPolicy: 'Orphan' }, 'Background', ['orphan']],
    ['orphanDependents true', [], { orphanDependents: true }, 'Background', ['orphan']],
    ['orphanDependents false on an Orphan type', [], { orphanDependents: false }, 'Orphan', []],
    ['Orphan type default with no request', [], {}, 'Orphan', ['orphan']],
    ['an existing foregroundDeletion beats an Orphan default', ['foregroundDeletion'], {}, 'Orphan', ['foregroundDeletion']],
    ['Unsupported types never change', [], { propagationPolicy: 'Foreground' }, 'Unsupported', []],
  ];
  for (const [title, before, req, def, want] of cases) {
    it(`spec 3.1: ${title}`, () => assert.deepEqual([...finalizersAfterDelete(before, req, def)], want));
  }

  it('reference behaviour: an unchanged list is the same array (no write needed)', () => {
    const f = ['orphan'];
    assert.equal(finalizersAfterDelete(f, { propagationPolicy: 'Orphan' }, 'Background'), f);
  });

  it('reference behaviour: per-type defaults', () => {
    assert.equal(defaultPolicyOf('', 'v1', 'replicationcontrollers'), 'Orphan');
    assert.equal(defaultPolicyOf('apps', 'v1', 'replicasets'), 'Background');
    assert.equal(defaultPolicyOf('', 'v1', 'events'), 'Unsupported');
    assert.equal(defaultPolicyOf('', 'v1', 'configmaps'), 'Background');
  });

  it('reference behaviour: unknown policies and both forms at once are rejected', () => {
    assert.throws(() => checkPropagation({ propagationPolicy: 'Sideways' }), /Unsupported value: "Sideways"/);
    assert.throws(() => checkPropagation({ propagationPolicy: 'Orphan', orphanDependents: false }), /cannot be both set/);
    assert.doesNotThrow(() => checkPropagation({ orphanDependents: true }));
  });
});
