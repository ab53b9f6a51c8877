import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isCIdentifier,
  isDNS1123Label,
  isDNS1123Subdomain,
  isIP,
  isIPv4,
  isLabelValue,
  isPathSegmentName,
  isQualifiedName,
  isValidPortNum,
  validateName,
} from './index.js';

type Case = [input: string, valid: boolean];

function table(title: string, fn: (v: string) => string[], cases: Case[]) {
  describe(title, () => {
    for (const [input, valid] of cases) {
      test(`${JSON.stringify(input.length > 40 ? `${input.slice(0, 20)}...(${input.length})` : input)} is ${valid ? 'valid' : 'invalid'}`, () => {
        const errs = fn(input);
        if (valid) assert.deepEqual(errs, []);
        else assert.ok(errs.length > 0, `expected problems for ${input}`);
      });
    }
  });
}

table('spec 2.1 isDNS1123Subdomain', isDNS1123Subdomain, [
  ['a', true],
  ['example.com', true],
  ['my-name.v1', true],
  ['0.1.2', true],
  ['a'.repeat(253), true],
  ['a'.repeat(254), false],
  ['', false],
  ['Example', false],
  ['-a', false],
  ['a-', false],
  ['a..b', false],
  ['.a', false],
  ['a_b', false],
  ['a/b', false],
]);

table('spec 2.1 isDNS1123Label', isDNS1123Label, [
  ['a', true],
  ['my-name', true],
  ['123-abc', true],
  ['a'.repeat(63), true],
  ['a'.repeat(64), false],
  ['', false],
  ['a.b', false],
  ['A', false],
  ['-a', false],
  ['a-', false],
]);

table('spec 2.1 isPathSegmentName', isPathSegmentName, [
  ['anything:Goes_Here', true],
  ['system:controller', true],
  ['a.b', true],
  ['.', false],
  ['..', false],
  ['a/b', false],
  ['50%', false],
]);

table('spec 2.1 isQualifiedName', isQualifiedName, [
  ['app', true],
  ['MyName', true],
  ['my.name', true],
  ['123-abc', true],
  ['a_b', true],
  ['example.com/MyName', true],
  ['orch.io/metadata.name', true],
  [`${'a'.repeat(253)}/${'b'.repeat(63)}`, true],
  ['', false],
  ['/name', false],
  ['prefix/', false],
  ['a/b/c', false],
  ['Example.com/name', false],
  ['-a', false],
  ['a-', false],
  ['a b', false],
  ['b'.repeat(64), false],
]);

table('spec 2.1 isLabelValue', isLabelValue, [
  ['', true],
  ['MyValue', true],
  ['my_value', true],
  ['12345', true],
  ['a.b-c_d', true],
  ['v'.repeat(63), true],
  ['v'.repeat(64), false],
  ['-a', false],
  ['a/b', false],
  ['a b', false],
]);

table('spec 2.1 isCIdentifier', isCIdentifier, [
  ['my_name', true],
  ['MY_NAME', true],
  ['_x1', true],
  ['1abc', false],
  ['a-b', false],
  ['', false],
]);

table('spec 2.1 isIPv4', isIPv4, [
  ['10.9.8.7', true],
  ['0.0.0.0', true],
  ['256.1.1.1', false],
  ['2001:db8::ffff', false],
  ['', false],
]);

table('spec 2.1 isIP', isIP, [
  ['10.9.8.7', true],
  ['2001:db8::ffff', true],
  ['::1', true],
  ['example.com', false],
  ['1.2.3', false],
]);

describe('spec 2.1 isValidPortNum', () => {
  const cases: [number, boolean][] = [
    [1, true],
    [80, true],
    [65535, true],
    [0, false],
    [65536, false],
    [-1, false],
    [1.5, false],
  ];
  for (const [port, valid] of cases) {
    test(`${port} is ${valid ? 'valid' : 'invalid'}`, () => {
      assert.deepEqual(isValidPortNum(port), valid ? [] : ['must be between 1 and 65535, inclusive']);
    });
  }
});

describe('spec 2.1 reference message wording', () => {
  const cases: [string, string[], string[]][] = [
    [
      'subdomain regex',
      isDNS1123Subdomain('Bad_Name'),
      [
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    [
      'subdomain length and regex',
      isDNS1123Subdomain(`${'a'.repeat(254)}-`).slice(0, 1),
      ['must be no more than 253 characters'],
    ],
    [
      'label regex',
      isDNS1123Label('A'),
      [
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name' or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    ['label with dots', isDNS1123Label('a.b'), ['must not contain dots']],
    ['label too long', isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']],
    ['path segment dot', isPathSegmentName('..'), ["may not be '..'"]],
    ['path segment both', isPathSegmentName('a/%'), ["may not contain '/'", "may not contain '%'"]],
    ['qualified empty prefix', isQualifiedName('/a'), ['prefix part must be non-empty']],
    ['qualified empty name', isQualifiedName('a/').slice(0, 1), ['name part must be non-empty']],
    [
      'qualified bad name',
      isQualifiedName('-a'),
      [
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName' or 'my.name' or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    [
      'qualified too many slashes',
      isQualifiedName('a/b/c'),
      [
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName' or 'my.name' or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
    [
      'label value',
      isLabelValue('-x'),
      [
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue' or 'my_value' or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
    ],
    ['ipv4', isIPv4('x'), ['must be a valid IPv4 address']],
    ['ip', isIP('x'), ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
  ];
  for (const [title, got, want] of cases) test(title, () => assert.deepEqual(got, want));
});

describe('spec 2.1 validateName (generateName prefixes may end in "-")', () => {
  const cases: [Parameters<typeof validateName>, boolean][] = [
    [['subdomain', 'web-', true], true],
    [['subdomain', 'web-', false], false],
    [['label', 'job-', true], true],
    [['label', 'a.b-', true], false],
    [['subdomain', '-', true], false],
    [['subdomain', 'Web-', true], false],
    [['path-segment', '.', true], true],
    [['path-segment', '.', false], false],
    [['path-segment', 'a/', true], false],
    [['path-segment', 'system:admin', false], true],
  ];
  for (const [args, valid] of cases) {
    test(`${args.join(' ')} -> ${valid ? 'valid' : 'invalid'}`, () => {
      assert.equal(validateName(...args).length === 0, valid);
    });
  }
});
