import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { optionalBoolean } from './values.js';

describe('spec 7 field errors: optional booleans', () => {
  for (const v of [undefined, null, true, false]) {
    it(`${String(v)} is accepted`, () => assert.deepEqual(optionalBoolean('immutable', v), []));
  }
  for (const v of ['true', 1, {}, []]) {
    it(`${JSON.stringify(v)} is a type error naming the field`, () => {
      const errs = optionalBoolean('spec.unschedulable', v);
      assert.equal(errs.length, 1);
      assert.equal(errs[0]!.field, 'spec.unschedulable');
      assert.match(errs[0]!.message, /must be of type boolean/);
    });
  }
});
