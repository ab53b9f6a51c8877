import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluateColumnPath, formatJsonPathValue, JsonPathError, parseJsonPath } from './jsonpath.js';

const pod = {
  kind: 'Pod',
  metadata: { name: 'web', labels: { app: 'web', 'orch.io/tier': 'front' }, annotations: { 'a.b/c': 'dotted' } },
  spec: { replicas: 3, containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }] }, { name: 'side', image: 'envoy' }] },
  status: {
    phase: 'Running',
    ready: true,
    conditions: [
      { type: 'Ready', status: 'True', count: 5 },
      { type: 'Scheduled', status: 'False', count: 2 },
      { type: 'Initialized', status: 'True' },
    ],
  },
};
const list = { kind: 'List', items: [pod, { ...pod, metadata: { name: 'db' }, spec: { replicas: 1, containers: [] } }] };

const printCases: { template: string; obj?: unknown; want: string }[] = [
  { template: '{.metadata.name}', want: 'web' },
  { template: 'name={.metadata.name} phase={.status.phase}', want: 'name=web phase=Running' },
  { template: '{.spec.replicas}', want: '3' },
  { template: '{.status.ready}', want: 'true' },
  { template: "{.metadata.annotations['a.b/c']}", want: 'dotted' },
  { template: '{.metadata.annotations.a\\.b/c}', want: 'dotted' },
  { template: '{.metadata.labels.orch\\.io/tier}', want: 'front' },
  { template: '{.spec.containers[0].name}', want: 'app' },
  { template: '{.spec.containers[-1].name}', want: 'side' },
  { template: '{.status.conditions[1:3].type}', want: 'Scheduled Initialized' },
  { template: '{.status.conditions[::2].type}', want: 'Ready Initialized' },
  { template: '{.status.conditions[:-1].type}', want: 'Ready Scheduled' },
  { template: '{.spec.containers[*].image}', want: 'nginx envoy' },
  { template: '{.metadata.labels.*}', want: 'web front' },
  { template: '{..image}', want: 'nginx envoy' },
  { template: '{..containerPort}', want: '80' },
  { template: '{.status.conditions[?(@.type=="Ready")].status}', want: 'True' },
  { template: "{.status.conditions[?(@.type!='Ready')].type}", want: 'Scheduled Initialized' },
  { template: '{.status.conditions[?(@.count>2)].type}', want: 'Ready' },
  { template: '{.status.conditions[?(@.count<5)].type}', want: 'Scheduled' },
  { template: '{.status.conditions[?(@.count>=2)].type}', want: 'Ready Scheduled' },
  { template: '{.status.conditions[?(@.count<=2)].type}', want: 'Scheduled' },
  { template: '{.status.conditions[?(@.count)].type}', want: 'Ready Scheduled' },
  { template: '{.status.conditions[?(@.count > "2")].type}', want: '' },
  { template: "{.metadata['name','kind']}", want: 'web' },
  { template: "{['kind','metadata']['name']}", want: 'web' },
  { template: '{.status.conditions[0,2].type}', want: 'Ready Initialized' },
  { template: '{.spec.containers[0].ports}', want: '[{"containerPort":80}]' },
  { template: '{.metadata.labels}', want: '{"app":"web","orch.io/tier":"front"}' },
  { template: '{range .items[*]}{.metadata.name}:{.spec.replicas}{"\\n"}{end}', obj: list, want: 'web:3\ndb:1\n' },
  { template: '{range .items[*]}[{range .spec.containers[*]}{.name},{end}]{end}', obj: list, want: '[app,side,][]' },
  { template: "{'a\\tb'}", want: 'a\tb' },
  { template: '{.missing}', want: '' },
  { template: '{.spec.containers[7].name}', want: '' },
  { template: '{.}', obj: { b: 1, a: '<x>' }, want: '{"a":"\\u003cx\\u003e","b":1}' },
  { template: 'plain text', want: 'plain text' },
  { template: '{.items[*].metadata.name}', obj: list, want: 'web db' },
  { template: '{$.metadata.name}', want: 'web' },
];

for (const c of printCases) {
  test(`reference behaviour, JSONPath print: ${c.template}`, () => {
    assert.equal(parseJsonPath(c.template).print(c.obj ?? pod), c.want);
  });
}

const badTemplates: { template: string; message: RegExp }[] = [
  { template: '{.a', message: /unclosed \{/ },
  { template: '{.a[0}', message: /unclosed \[/ },
  { template: '{.a[x y]}', message: /invalid array index/ },
  { template: '{.a[::0]}', message: /step must be greater than 0/ },
  { template: '{range .items[*]}{.a}', message: /\{range\} without \{end\}/ },
  { template: '{.a}{end}', message: /\{end\} without \{range\}/ },
  { template: '{}', message: /empty action/ },
  { template: '{.a....b}', message: /multiple recursive descent/ },
  { template: '{"abc}', message: /unterminated quoted string|unclosed/ },
  { template: '{.a[?(@.b=="x"]}', message: /unclosed filter|unclosed/ },
  { template: '{.a)}', message: /unrecognized character "\)"/ },
  { template: '{range}{end}', message: /needs an expression/ },
  { template: '{"a\\q"}', message: /invalid escape/ },
];

for (const c of badTemplates) {
  test(`reference behaviour, JSONPath parse error: ${c.template}`, () => {
    assert.throws(() => parseJsonPath(c.template), (e: unknown) => e instanceof JsonPathError && c.message.test(e.message));
  });
}

test('reference behaviour, JSONPath results: one list per action, literals included, text left out', () => {
  const p = parseJsonPath('x {.spec.containers[*].name} y {"lit"} {.missing}');
  assert.deepEqual(p.results(pod), [['app', 'side'], ['lit'], []]);
  assert.deepEqual(parseJsonPath('{range .items[*]}{.metadata.name}{end}').results(list), [['web'], ['db']]);
});

test('reference behaviour, JSONPath: parsed once, evaluated many times against different objects', () => {
  const p = parseJsonPath('{.status.phase}');
  assert.equal(p.print({ status: { phase: 'Pending' } }), 'Pending');
  assert.equal(p.print({ status: { phase: 'Running' } }), 'Running');
  assert.equal(p.print(null), '');
});

test('reference behaviour, JSONPath: missing keys are an error only when allowMissingKeys is false', () => {
  const p = parseJsonPath('{.status.nothing}');
  assert.equal(p.print(pod), '');
  assert.throws(() => p.print(pod, { allowMissingKeys: false }), /nothing is not found/);
  assert.equal(parseJsonPath('{.status.phase}').print(pod, { allowMissingKeys: false }), 'Running');
});

test('reference behaviour, JSONPath value text: strings bare, null as <nil>, numbers as written', () => {
  assert.deepEqual([formatJsonPathValue('s'), formatJsonPathValue(null), formatJsonPathValue(1.5), formatJsonPathValue(false)], ['s', '<nil>', '1.5', 'false']);
});

test('reference behaviour, printer column paths: first result or undefined; bad paths throw', () => {
  assert.equal(evaluateColumnPath('.spec.replicas', pod), 3);
  assert.equal(evaluateColumnPath('.spec.containers[*].name', pod), 'app');
  assert.equal(evaluateColumnPath('.status.conditions[?(@.type=="Ready")].status', pod), 'True');
  assert.equal(evaluateColumnPath('.spec.nothing', pod), undefined);
  assert.deepEqual(evaluateColumnPath('.spec.containers[0].ports[0]', pod), { containerPort: 80 });
  assert.throws(() => evaluateColumnPath('.spec[', pod), JsonPathError);
});
