import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POD_SECURITY_CONFIG_GROUP, POD_SECURITY_LABEL_PREFIX as P } from '../../../api/naming.js';
import { ALL_PRIVILEGED, levelVersionString, parsePodSecurityConfig, parseVersion, policyFromLabels, type Policy } from './policy.js';

const show = (p: Policy) => `${levelVersionString(p.enforce)} ${levelVersionString(p.audit)} ${levelVersionString(p.warn)}`;

test('reference behaviour (PodSecurity): namespace labels select the policy; bad values fail closed for enforce and open for audit/warn', () => {
  const table: [string, Record<string, string>, string, string[]][] = [
    ['no labels', {}, 'privileged:latest privileged:latest privileged:latest', []],
    ['enforce baseline also warns at baseline', { [`${P}enforce`]: 'baseline', [`${P}enforce-version`]: 'v1.29' }, 'baseline:v1.29 privileged:latest baseline:v1.29', []],
    ['an explicit warn label wins', { [`${P}enforce`]: 'restricted', [`${P}warn`]: 'baseline' }, 'restricted:latest privileged:latest baseline:latest', []],
    ['audit alone', { [`${P}audit`]: 'restricted', [`${P}audit-version`]: 'latest' }, 'privileged:latest restricted:latest privileged:latest', []],
    ['a bad enforce level', { [`${P}enforce`]: 'strict' }, 'restricted:latest privileged:latest privileged:latest', [`metadata.labels[${P}enforce]`]],
    ['a bad warn level and version', { [`${P}warn`]: 'x', [`${P}warn-version`]: '1.2' }, 'privileged:latest privileged:latest privileged:latest', [`metadata.labels[${P}warn]`, `metadata.labels[${P}warn-version]`]],
  ];
  for (const [what, labels, want, errs] of table) {
    const got = policyFromLabels(labels, ALL_PRIVILEGED);
    assert.equal(show(got.policy), want, what);
    assert.deepEqual(got.errors.map((e) => e.field), errs, what);
  }
  const versions: [string, number | undefined | 'invalid'][] = [['latest', undefined], ['v1.0', 0], ['v1.31', 31], ['v1.01', 'invalid'], ['v2.0', 'invalid'], ['1.3', 'invalid']];
  for (const [v, want] of versions) {
    const got = parseVersion(v);
    assert.equal(got === undefined ? 'invalid' : got.minor, want, v);
  }
});

test('reference behaviour (PodSecurity): PodSecurityConfiguration gives defaults and exemptions; bad fields name themselves', () => {
  const v1 = `${POD_SECURITY_CONFIG_GROUP}/v1`;
  const ok = parsePodSecurityConfig({ apiVersion: v1, kind: 'PodSecurityConfiguration', defaults: { enforce: 'baseline', 'audit-version': 'v1.25' }, exemptions: { usernames: ['ci'], namespaces: ['tools'], runtimeClasses: ['kata'] } });
  assert.equal(show(ok.defaults), 'baseline:latest privileged:v1.25 privileged:latest');
  assert.deepEqual([...ok.exemptUsernames, ...ok.exemptNamespaces, ...ok.exemptRuntimeClasses], ['ci', 'tools', 'kata']);
  assert.equal(show(parsePodSecurityConfig(undefined).defaults), 'privileged:latest privileged:latest privileged:latest');
  const table: [unknown, RegExp][] = [
    [{ apiVersion: v1, kind: 'Other' }, /kind: Unsupported value "Other"/],
    [{ apiVersion: 'v1', kind: 'PodSecurityConfiguration' }, /apiVersion: Unsupported value "v1"/],
    [{ apiVersion: v1, kind: 'PodSecurityConfiguration', defaults: { enforce: 'max' } }, /defaults\.enforce: Invalid value: "max": must be one of privileged, baseline, restricted/],
    [{ apiVersion: v1, kind: 'PodSecurityConfiguration', defaults: { 'warn-version': 'v2' } }, /defaults\.warn-version: Invalid value: "v2": must be "latest" or "v1\.x"/],
    [{ apiVersion: v1, kind: 'PodSecurityConfiguration', defaults: { bogus: 1 } }, /defaults\.bogus: unknown field/],
    [{ apiVersion: v1, kind: 'PodSecurityConfiguration', exemptions: { usernames: 'x' } }, /exemptions\.usernames: must be a list of strings/],
    [{ apiVersion: v1, kind: 'PodSecurityConfiguration', exemptions: { namespaces: ['a', 'a'] } }, /exemptions\.namespaces\[1\]: Duplicate value/],
    [{ apiVersion: v1, kind: 'PodSecurityConfiguration', extra: 1 }, /extra: unknown field/],
  ];
  for (const [raw, want] of table) assert.throws(() => parsePodSecurityConfig(raw), want);
});
