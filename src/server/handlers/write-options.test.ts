import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { META_GROUP } from '../../api/naming.js';
import { isStatusError } from '../../errors/index.js';
import { APPLY_PATCH_YAML, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '../../patch/index.js';
import { fieldManagerErrors, fieldManagerOf, patchOptionsOf } from './write-options.js';

const q = (s: string) => new URLSearchParams(s);

/** Runs `f` and returns the StatusError it throws (failing when it throws nothing or something else). */
function statusOf(f: () => unknown) {
  try {
    f();
  } catch (e) {
    if (isStatusError(e)) return e;
    throw e;
  }
  assert.fail('expected a StatusError');
}

describe('patch options (spec 4.2, 4.3; reference behaviour)', () => {
  const refused: [string, string, string, string][] = [
    ['force=true on a merge patch', MERGE_PATCH, 'force=true', 'force: Forbidden: may not be specified for non-apply patch'],
    ['force=false on a JSON patch', JSON_PATCH, 'force=false', 'force: Forbidden: may not be specified for non-apply patch'],
    ['force on a strategic merge patch', STRATEGIC_MERGE_PATCH, 'fieldManager=m&force=true', 'force: Forbidden: may not be specified for non-apply patch'],
    ['apply without fieldManager', APPLY_PATCH_YAML, '', 'fieldManager: Required value: is required for apply patch'],
    ['apply with an empty fieldManager', APPLY_PATCH_YAML, 'fieldManager=&force=true', 'fieldManager: Required value: is required for apply patch'],
  ];
  for (const [title, patchType, query, message] of refused) {
    it(`reference behaviour: ${title} is 422 Invalid PatchOptions`, () => {
      const e = statusOf(() => patchOptionsOf(q(query), patchType, 'kubectl/v1.31'));
      assert.equal(e.code, 422);
      assert.equal(e.reason, 'Invalid');
      assert.equal(e.message, `PatchOptions.${META_GROUP} "" is invalid: ${message}`);
      assert.equal(e.details?.kind, 'PatchOptions');
      assert.equal(e.details?.group, META_GROUP);
      assert.equal(e.details?.causes?.[0]?.field, message.split(':')[0]);
    });
  }

  const accepted: [string, string, string, { fieldManager: string; force: boolean }][] = [
    ['apply with a manager', APPLY_PATCH_YAML, 'fieldManager=alice', { fieldManager: 'alice', force: false }],
    ['apply with force', APPLY_PATCH_YAML, 'fieldManager=alice&force=true', { fieldManager: 'alice', force: true }],
    ['a merge patch infers its manager from the User-Agent', MERGE_PATCH, '', { fieldManager: 'kubectl', force: false }],
    ['a JSON patch names its manager', JSON_PATCH, 'fieldManager=bob', { fieldManager: 'bob', force: false }],
  ];
  for (const [title, patchType, query, want] of accepted) {
    it(`reference behaviour: ${title}`, () => {
      assert.deepEqual(patchOptionsOf(q(query), patchType, 'kubectl/v1.31'), want);
    });
  }

  it('reference behaviour: a force value that is not a boolean is a 400', () => {
    assert.equal(statusOf(() => patchOptionsOf(q('fieldManager=a&force=yes'), APPLY_PATCH_YAML, undefined)).code, 400);
  });
});

describe('fieldManager (spec 4.2; reference behaviour)', () => {
  const cases: [string, string, string[]][] = [
    ['128 bytes', 'm'.repeat(128), []],
    ['129 bytes', 'm'.repeat(129), ['Too long: may not be more than 128 bytes']],
    ['printable non-ASCII', 'gestionnaire-é', []],
    ['a control character, at its byte offset', 'é\u0007', ['Invalid value: "é\\u0007": invalid character U+0007 (at position 2)']],
  ];
  for (const [title, manager, messages] of cases) {
    it(`reference behaviour: ${title}`, () => {
      assert.deepEqual(fieldManagerErrors(manager).map((e) => e.message), messages);
    });
  }

  it('reference behaviour: a bad explicit manager is 422 Invalid <Kind>Options; an empty one counts as not given', () => {
    const e = statusOf(() => fieldManagerOf(q(`fieldManager=${'x'.repeat(129)}`), undefined, 'UpdateOptions'));
    assert.equal(e.code, 422);
    assert.equal(e.message, `UpdateOptions.${META_GROUP} "" is invalid: fieldManager: Too long: may not be more than 128 bytes`);
    assert.equal(fieldManagerOf(q('fieldManager='), 'my-tool/2.0 (linux)'), 'my-tool');
  });
});
