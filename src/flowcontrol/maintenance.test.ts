import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { ApiObject } from '../api/types.js';
import { autoUpdates, bootstrapAction, danglingStatus } from './maintenance.js';

const ANN = 'apf.example/autoupdate-spec';
const now = new Date('2024-05-01T10:00:00.123Z');
const schema = (level: string, status?: unknown): ApiObject => ({ metadata: { name: 's' }, spec: { priorityLevelConfiguration: { name: level } }, ...(status ? { status } : {}) });

describe('API priority and fairness: upkeep of the stored objects (reference behaviour)', () => {
  it('reference behaviour: Dangling is True/NotFound for a missing level and False/Found otherwise', () => {
    const missing = danglingStatus(schema('gone'), () => false, now);
    assert.deepEqual(missing, {
      conditions: [
        {
          type: 'Dangling',
          status: 'True',
          reason: 'NotFound',
          message: 'This FlowSchema references the PriorityLevelConfiguration object named "gone" but there is no such object',
          lastTransitionTime: '2024-05-01T10:00:00Z',
        },
      ],
    });
    const found = danglingStatus(schema('l'), () => true, now);
    assert.equal((found?.conditions as { reason: string }[])[0]?.reason, 'Found');
  });

  it('reference behaviour: an up-to-date condition is not rewritten; a changed one keeps other conditions', () => {
    const current = danglingStatus(schema('l'), () => true, now);
    assert.equal(danglingStatus(schema('l', current), () => true, new Date()), undefined);
    const other = { type: 'Other', status: 'True' };
    const next = danglingStatus(schema('l', { conditions: [other] }), () => false, now);
    assert.deepEqual((next?.conditions as unknown[])[0], other);
  });

  const table: [string, Record<string, string> | undefined, number, boolean][] = [
    ['annotation "true"', { [ANN]: 'true' }, 5, true],
    ['annotation "false"', { [ANN]: 'false' }, 1, false],
    ['Go spelling "TRUE"', { [ANN]: 'TRUE' }, 5, true],
    ['no annotation, never edited (generation 1)', undefined, 1, true],
    ['no annotation, edited', undefined, 2, false],
    ['unparseable annotation, edited', { [ANN]: 'yes' }, 3, false],
  ];
  for (const [title, annotations, generation, want] of table) {
    it(`reference behaviour: auto-update with ${title} is ${want}`, () => {
      assert.equal(autoUpdates({ metadata: { name: 'x', generation, ...(annotations ? { annotations } : {}) } }, ANN), want);
    });
  }

  it('reference behaviour: a mandatory object is restored even when marked "false"; a suggested one is then left alone', () => {
    const builtin: ApiObject = { metadata: { name: 'x' }, spec: { a: 1 } };
    const edited: ApiObject = { metadata: { name: 'x', generation: 4, annotations: { [ANN]: 'false' } }, spec: { a: 2 } };
    const restored = bootstrapAction(edited, builtin, true, ANN, isDeepStrictEqual);
    assert.equal(restored.kind, 'update');
    assert.deepEqual(restored.kind === 'update' && restored.object.spec, { a: 1 });
    assert.equal(restored.kind === 'update' && restored.object.metadata?.annotations?.[ANN], 'true');
    assert.deepEqual(bootstrapAction(edited, builtin, false, ANN, isDeepStrictEqual), { kind: 'none' });
    const same: ApiObject = { metadata: { name: 'x', annotations: { [ANN]: 'true' } }, spec: { a: 1 } };
    assert.deepEqual(bootstrapAction(same, builtin, true, ANN, isDeepStrictEqual), { kind: 'none' });
  });
});
