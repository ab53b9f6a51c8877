import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTHORIZATION_GROUP } from '../../api/naming.js';
import { accessRows, alignColumns, breakdownRule, combineResourceGroup, compactRules, whoamiRows } from './auth-rules.js';
import { checkCanIFlags, parseCanIArgs } from './auth.js';

describe('auth can-i --list and whoami formatting (reference behaviour)', () => {
  it('reference behaviour: rules are broken down per group, resource and name, URLs one each', () => {
    assert.deepEqual(breakdownRule({ verbs: ['get'], apiGroups: ['', 'apps'], resources: ['pods'], resourceNames: ['a', 'b'] }), [
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['b'] },
      { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'], resourceNames: ['a'] },
      { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'], resourceNames: ['b'] },
    ]);
    assert.deepEqual(breakdownRule({ verbs: ['get'], nonResourceURLs: ['/a', '/b'] }), [
      { verbs: ['get'], nonResourceURLs: ['/a'] },
      { verbs: ['get'], nonResourceURLs: ['/b'] },
    ]);
  });

  it('reference behaviour: the verbs of one group/resource are merged, first-seen order kept', () => {
    const merged = compactRules([
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['list', 'watch'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], nonResourceURLs: ['/x'] },
    ]);
    assert.deepEqual(merged, [
      { verbs: ['get'], nonResourceURLs: ['/x'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
    ]);
  });

  const cases: [string[] | undefined, string[] | undefined, string][] = [
    [['pods'], [''], 'pods'],
    [['deployments/scale'], ['apps'], 'deployments.apps/scale'],
    [['*'], ['*'], '*.*'],
    [[], ['apps'], ''],
    [undefined, undefined, ''],
  ];
  for (const [resources, groups, want] of cases) {
    it(`reference behaviour: resource column of ${JSON.stringify(resources)} in ${JSON.stringify(groups)} is "${want}"`, () => {
      assert.equal(combineResourceGroup(resources, groups), want);
    });
  }

  it('reference behaviour: --list prints sorted rows (by verbs first) aligned with three spaces', () => {
    const status = {
      resourceRules: [
        { verbs: ['create'], apiGroups: [AUTHORIZATION_GROUP], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'] },
      ],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }, { verbs: ['get'], nonResourceURLs: ['/healthz', '/api'] }],
    };
    const text = alignColumns(accessRows(status, false));
    // Widths: the longest cell of each column plus three; `[]` sorts before any name (']' < letters).
    const first = `selfsubjectaccessreviews.${AUTHORIZATION_GROUP}`.length + 3;
    const line = (a: string, b: string, c: string, d: string) => `${a.padEnd(first)}${b.padEnd(20)}${c.padEnd(17)}${d}\n`;
    assert.equal(
      text,
      line('Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs') +
        line('*.*', '[]', '[]', '[*]') +
        line('', '[*]', '[]', '[*]') +
        line(`selfsubjectaccessreviews.${AUTHORIZATION_GROUP}`, '[]', '[]', '[create]') +
        line(`selfsubjectrulesreviews.${AUTHORIZATION_GROUP}`, '[]', '[]', '[create]') +
        line('', '[/api]', '[]', '[get]') +
        line('', '[/healthz]', '[]', '[get]') +
        line('configmaps', '[]', '[cfg]', '[get]'),
    );
  });

  it('reference behaviour: --no-headers drops only the header', () => {
    assert.deepEqual(accessRows({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }, true), [['pods', '[]', '[]', '[get]']]);
  });

  it('reference behaviour: whoami shows only filled attributes, extras sorted by key', () => {
    const rows = whoamiRows({ username: 'alice', groups: ['devs', 'system:authenticated'], extra: { z: ['1'], a: ['x', 'y'] } });
    assert.equal(alignColumns(rows), 'ATTRIBUTE   VALUE\nUsername    alice\nGroups      [devs system:authenticated]\nExtra: a    [x y]\nExtra: z    [1]\n');
  });

  const args: [string[], object][] = [
    [['get', 'pods'], { verb: 'get', resource: 'pods' }],
    [['get', 'pods/web'], { verb: 'get', resource: 'pods', name: 'web' }],
    [['get', '/healthz'], { verb: 'get', nonResourceURL: '/healthz' }],
    [['*', '*'], { verb: '*', resource: '*' }],
  ];
  for (const [input, want] of args) it(`reference behaviour: can-i ${input.join(' ')}`, () => assert.deepEqual(parseCanIArgs(input), want));

  it('reference behaviour: can-i needs exactly two arguments, and --list none', () => {
    assert.throws(() => parseCanIArgs(['get']), /two arguments/);
    assert.throws(() => checkCanIFlags(['get', 'pods'], { list: true }), /--list takes no arguments/);
    assert.throws(() => checkCanIFlags([], { list: true, quiet: true }), /cannot be combined/);
    assert.throws(() => checkCanIFlags(['get', 'pods'], { noHeaders: true }), /--list only/);
  });
});
