import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ADMISSION_CONFIG_GROUP } from '../api/naming.js';
import { ADMISSION_CONFIG_VERSIONS, loadAdmissionConfiguration, parseAdmissionConfiguration } from './config.js';
import { ORDERED_PLUGINS } from './plugins.js';

const known = (n: string) => ORDERED_PLUGINS.includes(n);
const dir = mkdtempSync(join(tmpdir(), 'orch-admission-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const V1 = `${ADMISSION_CONFIG_GROUP}/v1`;

test('spec 2.12: AdmissionConfiguration plugins[] with inline configuration or a path relative to the file, in YAML or JSON', () => {
  writeFileSync(join(dir, 'limits.yaml'), 'apiVersion: example/v1\nkind: Configuration\nlimits:\n- type: Server\n  qps: 5\n');
  const file = join(dir, 'admission.yaml');
  writeFileSync(
    file,
    [`apiVersion: ${V1}`, 'kind: AdmissionConfiguration', 'plugins:', '- name: EventRateLimit', '  path: limits.yaml', '- name: Priority',
      '- name: PodSecurity', '  configuration:', '    defaults: {enforce: baseline}'].join('\n'),
  );
  const got = loadAdmissionConfiguration(file, known);
  assert.deepEqual([...got.keys()], ['EventRateLimit', 'Priority', 'PodSecurity']);
  assert.deepEqual(got.get('EventRateLimit'), { apiVersion: 'example/v1', kind: 'Configuration', limits: [{ type: 'Server', qps: 5 }] });
  assert.equal(got.get('Priority'), undefined);
  assert.deepEqual(got.get('PodSecurity'), { defaults: { enforce: 'baseline' } });
  const json = parseAdmissionConfiguration(JSON.stringify({ apiVersion: ADMISSION_CONFIG_VERSIONS[1], kind: 'AdmissionConfiguration', plugins: [] }), dir, known);
  assert.equal(json.size, 0);
});

test('spec 2.12: a bad AdmissionConfiguration is refused naming the field that is wrong', () => {
  const doc = (rest: string) => `apiVersion: ${V1}\nkind: AdmissionConfiguration\n${rest}`;
  const table: [string, RegExp][] = [
    ['apiVersion: v1\nkind: AdmissionConfiguration\n', /: apiVersion: Unsupported value "v1": supported values: /],
    [`apiVersion: ${ADMISSION_CONFIG_GROUP}/v1beta1\nkind: AdmissionConfiguration\n`, /: apiVersion: Unsupported value/],
    [`apiVersion: ${V1}\nkind: Other\n`, /: kind: Unsupported value "Other": supported values: "AdmissionConfiguration"/],
    [doc('extra: 1\n'), /: extra: unknown field/],
    [doc('plugins: {}\n'), /: plugins: must be a list/],
    [doc('plugins:\n- path: x\n'), /: plugins\[0\]\.name: Required value/],
    [doc('plugins:\n- name: Nope\n'), /: plugins\[0\]\.name: Unsupported value "Nope"/],
    [doc('plugins:\n- name: Priority\n- name: Priority\n'), /: plugins\[1\]\.name: Duplicate value "Priority"/],
    [doc('plugins:\n- name: Priority\n  path: a.yaml\n  configuration: {a: 1}\n'), /: plugins\[0\]: path and configuration are mutually exclusive/],
    [doc('plugins:\n- name: Priority\n  path: missing.yaml\n'), /: plugins\[0\]\.path: cannot read .*missing\.yaml/],
    [doc('plugins:\n- name: Priority\n  configuration: 3\n'), /: plugins\[0\]\.configuration: must be an object/],
    [doc('plugins:\n- name: Priority\n  colour: red\n'), /: plugins\[0\]\.colour: unknown field/],
    ['a: 1\na: 2\n', /: the document: not valid YAML or JSON/],
    ['- just a list\n', /: the document must be an object/],
  ];
  for (const [text, want] of table) assert.throws(() => parseAdmissionConfiguration(text, dir, known), want, text);
});

test('spec 2.12: an unreadable configuration file is an error naming the flag and the file', () => {
  assert.throws(() => loadAdmissionConfiguration(join(dir, 'none.yaml'), known), /^Error: --admission-control-config-file: cannot read .*none\.yaml/);
  writeFileSync(join(dir, 'bad.yaml'), `apiVersion: ${V1}\nkind: AdmissionConfiguration\nplugins:\n- name: X\n`);
  assert.throws(() => loadAdmissionConfiguration(join(dir, 'bad.yaml'), known), /--admission-control-config-file .*bad\.yaml: plugins\[0\]\.name: Unsupported value "X"/);
});
