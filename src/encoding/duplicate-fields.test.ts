import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pods } from '../registry/resources/pods/index.js';
import {
  fieldProblems,
  findDuplicateFieldsJson,
  findDuplicateFieldsYaml,
  strictDecodingMessage,
  warningFor,
} from './duplicate-fields.js';
import { findUnknownFields } from './unknown-fields.js';

const jsonCases: { title: string; text: string; want: string[] }[] = [
  { title: 'no duplicates', text: '{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{}}', want: [] },
  { title: 'top level', text: '{"kind":"Pod","kind":"Pod"}', want: ['.kind'] },
  { title: 'nested', text: '{"metadata":{"name":"a", "name" : "b"}}', want: ['.metadata.name'] },
  {
    title: 'inside arrays, with indexes, document order',
    text: '{"spec":{"paused":true,"paused":false,"containers":[{"name":"a"},{"name":"b","image":"x","image":"y"}]}}',
    want: ['.spec.paused', '.spec.containers[1].image'],
  },
  { title: 'a name repeated three times is reported once', text: '{"a":1,"a":2,"a":3}', want: ['.a'] },
  { title: 'same name in sibling objects is fine', text: '[{"a":1},{"a":2}]', want: [] },
  { title: 'escaped names compare by value', text: '{"a\\u0062":1,"ab":2}', want: ['.ab'] },
  { title: 'colons and quotes inside strings do not confuse the scan', text: '{"t":"12:00","q":"say \\": hi","q2":"\\\\","q2":"x"}', want: ['.q2'] },
  { title: 'whitespace everywhere', text: ' {\n\t"a" \r\n:\n1 ,\n "a"\t:\t{ } }\n', want: ['.a'] },
  { title: 'invalid JSON is left to the decoder', text: '{"a":1,"a":', want: [] },
  { title: 'scalars and empty containers', text: '[1, "x", null, {}, []]', want: [] },
];

describe('spec 4.2 / spec 7: findDuplicateFieldsJson', () => {
  for (const c of jsonCases) {
    it(`spec 7: ${c.title}`, () => assert.deepEqual(findDuplicateFieldsJson(c.text), c.want));
    it(`spec 7: ${c.title} (UTF-8 bytes, parsed value given)`, () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(c.text);
      } catch {
        parsed = undefined;
      }
      assert.deepEqual(findDuplicateFieldsJson(Buffer.from(c.text), parsed), c.want);
    });
  }

  it('spec 7: bytes of multi-byte names and values count like their text', () => {
    const text = '{"ü":"✓:","ü":"x","é":{"名":1,"名":2}}';
    const bytes = new Uint8Array(Buffer.from(`..${text}..`)).subarray(2, -2); // a view into a larger buffer
    assert.deepEqual(findDuplicateFieldsJson(bytes), ['.ü', '.é.名']);
    assert.deepEqual(findDuplicateFieldsJson(Buffer.from('{"ü":"a:b","名":{"x":1}}')), []);
  });

  it('spec 7: uses the parsed value when given (no second parse)', () => {
    const text = '{"a":1,"a":2}';
    assert.deepEqual(findDuplicateFieldsJson(text, JSON.parse(text)), ['.a']);
  });

  it('spec 7: fast path on a large body without duplicates, scan on one with a late duplicate', () => {
    const items = Array.from({ length: 20000 }, (_, i) => ({ name: `n${i}`, value: `v:${i}`, nested: { a: [i, i + 1] } }));
    const big = JSON.stringify({ items });
    assert.deepEqual(findDuplicateFieldsJson(big), []);
    const withDup = `${big.slice(0, -1)},"items":[]}`;
    assert.deepEqual(findDuplicateFieldsJson(withDup), ['.items']);
  });
});

const yamlCases: { title: string; text: string; want: string[] }[] = [
  { title: 'no duplicates', text: 'metadata:\n  name: a\n  labels:\n    x: "1"\n', want: [] },
  { title: 'block mapping', text: 'metadata:\n  name: a\n  name: b\n', want: ['.metadata.name'] },
  {
    title: 'reference Deployment body: several levels, document order',
    text: [
      'metadata:',
      '  name: dupename',
      '  name: real',
      'spec:',
      '  unknownDupe: a',
      '  unknownDupe: b',
      '  paused: true',
      '  paused: false',
      '  template:',
      '    spec:',
      '      containers:',
      '      - name: nginx',
      '        imagePullPolicy: Always',
      '        imagePullPolicy: Never',
    ].join('\n'),
    want: ['.metadata.name', '.spec.unknownDupe', '.spec.paused', '.spec.template.spec.containers[0].imagePullPolicy'],
  },
  { title: 'flow mapping and quoted keys', text: 'labels: {x: 1, "x": 2}\n', want: ['.labels.x'] },
  { title: 'JSON is YAML', text: '{"a": {"b": 1, "b": 2}}', want: ['.a.b'] },
  { title: 'merge keys are not duplicates', text: 'base: &b {k: 1}\nobj:\n  <<: *b\n  z: 1\n', want: [] },
  { title: 'same key in list items is fine', text: 'l:\n- a: 1\n- a: 2\n', want: [] },
  { title: 'empty document', text: '', want: [] },
];

describe('spec 4.2 / spec 7: findDuplicateFieldsYaml', () => {
  for (const c of yamlCases) {
    it(`spec 7: ${c.title}`, () => assert.deepEqual(findDuplicateFieldsYaml(c.text), c.want));
  }
});

describe('spec 7: strict decoding wording', () => {
  const warnings: [string, 'unknown' | 'duplicate', string][] = [
    ['.spec.foo', 'unknown', 'unknown field "spec.foo"'],
    ['.metadata.name', 'duplicate', 'duplicate field "metadata.name"'],
    ['.spec.containers[0].imagePullPolicyy', 'unknown', 'unknown field "spec.containers[0].imagePullPolicyy"'],
    ['spec.bare', 'unknown', 'unknown field "spec.bare"'],
  ];
  for (const [path, kind, want] of warnings) {
    it(`spec 7: warningFor(${path}, ${kind})`, () => assert.equal(warningFor(path, kind), want));
  }

  it('spec 7: Strict message lists every offending field', () => {
    assert.equal(
      strictDecodingMessage(['.spec.foo'], ['.metadata.name']),
      'strict decoding error: unknown field "spec.foo", duplicate field "metadata.name"',
    );
  });

  it('spec 7: a field both unknown and duplicated (or below an unknown one) is reported as unknown only', () => {
    assert.deepEqual(fieldProblems(['.spec.unknownDupe', '.spec.x'], ['.spec.unknownDupe', '.spec.x.y', '.spec.x[0]', '.spec.xy']), [
      'unknown field "spec.unknownDupe"',
      'unknown field "spec.x"',
      'duplicate field "spec.xy"',
    ]);
  });

  it('spec 7: a pod body with both kinds of problems, end to end', () => {
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', imagePullPolicyy: 'Always' }] } })
      .replace('"name":"a"', '"name":"a","name":"b"');
    const unknown = findUnknownFields(JSON.parse(text), pods.schema);
    const dups = findDuplicateFieldsJson(text);
    assert.equal(
      strictDecodingMessage(unknown, dups),
      'strict decoding error: unknown field "spec.containers[0].imagePullPolicyy", duplicate field "metadata.name"',
    );
  });
});

describe('fieldProblems on many fields (issue 23: no request may hold the event loop)', () => {
  it('50,000 unknown and 50,000 duplicated fields are sorted out in linear time', () => {
    const n = 50_000;
    const unknown = Array.from({ length: n }, (_, i) => `.spec.u${i}`);
    const dups = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? `.spec.u${i}.x` : `.spec.d${i}`));
    const start = Date.now();
    const problems = fieldProblems(unknown, dups);
    // Comparing every pair took almost two minutes; the lookup takes milliseconds. The bound is generous.
    assert.ok(Date.now() - start < 5000, `took ${Date.now() - start} ms`);
    assert.equal(problems.length, n + n / 2);
    assert.equal(problems[n], 'duplicate field "spec.d1"');
  });
});
