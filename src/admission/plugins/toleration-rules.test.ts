import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeTolerations, tolerationErrors } from './toleration-rules.js';

test('reference behaviour (toleration rules): the API rules for a toleration, each naming the field', () => {
  const table: [Record<string, unknown>, string[]][] = [
    [{ key: 'a', operator: 'Equal', value: 'b', effect: 'NoSchedule' }, []],
    [{ key: 'a', operator: 'Exists' }, []],
    [{ operator: 'Exists' }, []],
    [{ key: 'a', value: 'b' }, []],
    [{ key: 'a', effect: 'NoExecute', tolerationSeconds: 30 }, []],
    [{ key: 'bad key' }, ['t.key: Invalid value: "bad key": name part must consist of alphanumeric characters']],
    [{ value: 'x' }, ['t.operator: Invalid value: "": operator must be Exists when `key` is empty']],
    [{ key: 'a', effect: 'NoSchedule', tolerationSeconds: 3 }, ["t.effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"]],
    [{ key: 'a', operator: 'Exists', value: 'x' }, ["t.operator: Invalid value: \"x\": value must be empty when `operator` is 'Exists'"]],
    [{ key: 'a', operator: 'Less' }, ['t.operator: Unsupported value: "Less": supported values: "Equal", "Exists"']],
    [{ key: 'a', effect: 'Sometimes' }, ['t.effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"']],
    [{ key: 'a', value: 'not ok' }, ['t.value: Invalid value: "not ok": a valid label must be']],
  ];
  for (const [t, want] of table) {
    const got = tolerationErrors(t, 't');
    assert.equal(got.length, want.length, JSON.stringify(t));
    want.forEach((w, i) => assert.ok(got[i]?.startsWith(w), `${JSON.stringify(t)}: ${got[i]}`));
  }
});

test('reference behaviour (toleration rules): decoding keeps toleration fields only, and strict mode applies the rules', () => {
  assert.deepEqual(decodeTolerations([{ key: 'a', operator: 'Exists', value: '', other: 1, tolerationSeconds: null }], 'l', false), [{ key: 'a', operator: 'Exists' }]);
  assert.deepEqual(decodeTolerations(undefined, 'l', true), []);
  const refused: [unknown, boolean, RegExp][] = [
    ['x', false, /l: must be a list of tolerations/],
    [[5], false, /l\[0\]: must be an object/],
    [[{ key: 5 }], false, /l\[0\]\.key: must be a string/],
    [[{ key: 'a', tolerationSeconds: 1.5 }], false, /l\[0\]\.tolerationSeconds: must be an integer/],
    [[{ key: 'a', other: 1 }], true, /l\[0\]\.other: unknown field/],
    [[{ key: 'a' }, { key: 'a', operator: 'Bad' }], true, /l\[1\]\.operator: Unsupported value: "Bad"/],
  ];
  for (const [raw, strict, want] of refused) assert.throws(() => decodeTolerations(raw, 'l', strict), want);
  // Lenient mode leaves the API rules to the pod's own validation.
  assert.deepEqual(decodeTolerations([{ key: 'a', operator: 'Bad' }], 'l', false), [{ key: 'a', operator: 'Bad' }]);
});
