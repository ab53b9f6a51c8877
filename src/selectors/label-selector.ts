/**
 * Label selectors (spec 4.2, `labelSelector` query parameter and `metav1.LabelSelector` objects).
 * The string grammar, error wording and matching follow the reference parser, because clients
 * (kubectl -l, informers) send exactly that syntax and print the server's message back to users.
 */
import { badRequest, fieldError, quote, type FieldError, type StatusError } from '../errors/index.js';

/**
 * Bounds on a selector string (the reference has none beyond its 1 MiB header limit): matching costs
 * requirements × objects on every list and requirements × watchers on every event, so one request could
 * otherwise buy seconds of CPU. Real selectors have a handful of requirements.
 */
export const MAX_SELECTOR_REQUIREMENTS = 1000;
export const MAX_SELECTOR_VALUES = 10_000;

/** `=`/`==` parse to `In` with one value and `!=` to `NotIn`: the reference matches them identically. */
export type LabelOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and de-duplicated; empty for Exists/DoesNotExist, one integer for Gt/Lt. */
  readonly values: readonly string[];
}

export interface LabelSelector {
  /** ANDed; sorted by key. No requirements selects everything. */
  readonly requirements: readonly LabelRequirement[];
  /** A null structured selector selects nothing (reference `labels.Nothing()`). */
  readonly matchesNothing?: boolean;
}

export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirementObject[];
}

export const everything: LabelSelector = Object.freeze({ requirements: Object.freeze([]) });
export const nothing: LabelSelector = Object.freeze({ requirements: Object.freeze([]), matchesNothing: true });

// ---- validation of keys and values (reference IsQualifiedName / IsValidLabelValue wording) ----

const QNAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QNAME_RE = new RegExp(`^${QNAME_FMT}$`);
const QNAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QNAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

const regexError = (msg: string, fmt: string, ...examples: string[]) =>
  `${msg} (e.g. ${examples.map((e) => `'${e}', `).join('or ')}regex used for validation is '${fmt}')`;
const maxLen = (n: number) => `must be no more than ${n} characters`;

/** Problems with a label key (qualified name with optional DNS-subdomain prefix); empty when valid. */
export function labelKeyErrors(key: string): string[] {
  const errs: string[] = [];
  const parts = key.split('/');
  if (parts.length > 2) {
    return [
      `a qualified name ${regexError(QNAME_MSG, QNAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const name = parts.length === 2 ? (parts[1] ?? '') : key;
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix === '') errs.push('prefix part must be non-empty');
    else {
      if (prefix.length > 253) errs.push(`prefix part ${maxLen(253)}`);
      if (!DNS1123_SUBDOMAIN_RE.test(prefix))
        errs.push(`prefix part ${regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com')}`);
    }
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLen(63)}`);
  if (!QNAME_RE.test(name)) errs.push(`name part ${regexError(QNAME_MSG, QNAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** Problems with a label value (empty, or up to 63 characters of the qualified-name alphabet). */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLen(63));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

const INT64_RE = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
function parseInt64(s: string): bigint | undefined {
  if (!INT64_RE.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** Builds one requirement, collecting every problem like the reference `NewRequirement`. */
function requirement(
  key: string,
  operator: LabelOperator,
  rawValues: readonly string[],
  keyPath: string,
  valuesPath: string,
  valueAt = (i: number) => `${valuesPath}[${i}]`,
): LabelRequirement | FieldError[] {
  const errs: FieldError[] = [];
  const keyErrs = labelKeyErrors(key);
  if (keyErrs.length > 0) errs.push(fieldError.invalid(keyPath, key, keyErrs.join('; ')));
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (rawValues.length === 0)
        errs.push(fieldError.invalid(valuesPath, rawValues, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (rawValues.length !== 0)
        errs.push(fieldError.invalid(valuesPath, rawValues, 'values set must be empty for exists and does not exist'));
      break;
    case 'Gt':
    case 'Lt':
      if (rawValues.length !== 1)
        errs.push(fieldError.invalid(valuesPath, rawValues, "for 'Gt', 'Lt' operators, exactly one value is required"));
      rawValues.forEach((v, i) => {
        if (parseInt64(v) === undefined)
          errs.push(fieldError.invalid(valueAt(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  rawValues.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(fieldError.invalid(valueAt(i), v, valueErrs.join('; ')));
  });
  if (errs.length > 0) return errs;
  return { key, operator, values: [...new Set(rawValues)].sort() };
}

const byKey = (a: LabelRequirement, b: LabelRequirement) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** The reference renders a field.ErrorList as one message, or `[a, b]` for several. */
function describe(errs: FieldError[]): string {
  const parts = errs.map((e) => `${e.field}: ${e.message}`);
  return parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
}

// ---- the string grammar ----

type Tok = 'ident' | 'in' | 'notin' | '!' | '!=' | '=' | '==' | '>' | '<' | '(' | ')' | ',' | 'eos';
interface Token {
  tok: Tok;
  lit: string;
}

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string) => '=!(),><'.includes(c);

function lex(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i] ?? '';
    if (isSpace(c)) {
      i++;
    } else if (isSpecial(c)) {
      // Longest match: the only two-character symbols are `!=` and `==`.
      const two = s.slice(i, i + 2);
      const tok = (two === '!=' || two === '==' ? two : c) as Tok;
      out.push({ tok, lit: tok });
      i += tok.length;
    } else {
      let j = i;
      while (j < s.length && !isSpace(s[j] ?? '') && !isSpecial(s[j] ?? '')) j++;
      const lit = s.slice(i, j);
      out.push({ tok: lit === 'in' || lit === 'notin' ? lit : 'ident', lit });
      i = j;
    }
  }
  out.push({ tok: 'eos', lit: '' });
  return out;
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  private pos = 0;
  private readonly tokens: Token[];
  constructor(private readonly src: string) {
    this.tokens = lex(src);
  }

  /** In value position `in`/`notin` are ordinary identifiers, so `in=x` and `k in (in)` parse. */
  private peek(values = true): Token {
    const t = this.tokens[this.pos] ?? { tok: 'eos', lit: '' };
    return values && (t.tok === 'in' || t.tok === 'notin') ? { tok: 'ident', lit: t.lit } : t;
  }
  private next(values = true): Token {
    const t = this.peek(values);
    if (this.pos < this.tokens.length - 1) this.pos++;
    return t;
  }

  fail(reason: string, causes?: FieldError[]): StatusError {
    return badRequest(`invalid label selector ${quote(this.src)}: ${reason}`, causes);
  }
  private failRequirement(reason: string, causes?: FieldError[]): StatusError {
    return this.fail(`unable to parse requirement: ${reason}`, causes);
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    let values = 0;
    for (;;) {
      const t = this.peek();
      if (t.tok === 'eos') return reqs;
      if (t.tok !== 'ident' && t.tok !== '!') throw this.fail(`found '${t.lit}', expected: !, identifier, or 'end of string'`);
      const r = this.requirement();
      reqs.push(r);
      values += r.values.length;
      if (reqs.length > MAX_SELECTOR_REQUIREMENTS) throw this.fail(`too many requirements: the limit is ${MAX_SELECTOR_REQUIREMENTS}`);
      if (values > MAX_SELECTOR_VALUES) throw this.fail(`too many values: the limit is ${MAX_SELECTOR_VALUES} in all requirements`);
      const after = this.next();
      if (after.tok === 'eos') return reqs;
      if (after.tok !== ',') throw this.fail(`found '${after.lit}', expected: ',' or 'end of string'`);
      const t2 = this.peek();
      if (t2.tok !== 'ident' && t2.tok !== '!') throw this.fail(`found '${t2.lit}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelRequirement {
    let negated = false;
    let t = this.next();
    if (t.tok === '!') {
      negated = true;
      t = this.next();
    }
    if (t.tok !== 'ident') throw this.failRequirement(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErrs = labelKeyErrors(key);
    if (keyErrs.length > 0) {
      const e = fieldError.invalid('key', key, keyErrs.join('; '));
      throw this.failRequirement(describe([e]), [e]);
    }
    // `!k` is complete on its own; a following operator is then reported by parse() as a stray token.
    const la = this.peek().tok;
    if (negated || la === 'eos' || la === ',') return this.build(key, negated ? 'DoesNotExist' : 'Exists', []);

    const op = this.next(false);
    switch (op.tok) {
      case 'in':
        return this.build(key, 'In', this.valueSet());
      case 'notin':
        return this.build(key, 'NotIn', this.valueSet());
      case '=':
      case '==':
        return this.build(key, 'In', this.exactValue());
      case '!=':
        return this.build(key, 'NotIn', this.exactValue());
      case '>':
        return this.build(key, 'Gt', this.exactValue());
      case '<':
        return this.build(key, 'Lt', this.exactValue());
      default:
        throw this.failRequirement(`found '${op.lit}', expected: ${BINARY_OPERATORS}`);
    }
  }

  private build(key: string, op: LabelOperator, values: string[]): LabelRequirement {
    const r = requirement(key, op, values, 'key', 'values');
    if (Array.isArray(r)) throw this.failRequirement(describe(r), r);
    return r;
  }

  /** `k=` means the empty value, as in the reference. */
  private exactValue(): string[] {
    const la = this.peek();
    if (la.tok === 'eos' || la.tok === ',') return [''];
    const t = this.next();
    if (t.tok !== 'ident') throw this.failRequirement(`found '${t.lit}', expected: identifier`);
    return [t.lit];
  }

  /** `( a, b )`; empty members (`()`, `(a,)`, `(,a)`) stand for the empty value, as in the reference. */
  private valueSet(): string[] {
    const open = this.next();
    if (open.tok !== '(') throw this.failRequirement(`found '${open.lit}' expected: '('`);
    const la = this.peek();
    if (la.tok === ')') {
      this.next();
      return [''];
    }
    if (la.tok !== 'ident' && la.tok !== ',') throw this.failRequirement(`found '${la.lit}', expected: ',', ')' or identifier`);
    const values: string[] = [];
    for (;;) {
      const t = this.next();
      if (t.tok === 'ident') {
        values.push(t.lit);
        const t2 = this.peek();
        if (t2.tok === ')') break;
        if (t2.tok !== ',') throw this.failRequirement(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (t.tok === ',') {
        if (values.length === 0) values.push('');
        const t2 = this.peek();
        if (t2.tok === ')') {
          values.push('');
          break;
        }
        if (t2.tok === ',') {
          this.next();
          values.push('');
        }
      } else {
        throw this.failRequirement(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
    this.next(); // the ')' seen above
    return values;
  }
}

/** Parses the string form; `''` (or only whitespace) selects everything. Throws a 400 StatusError. */
export function parseLabelSelector(s: string): LabelSelector {
  const reqs = new Parser(s).parse();
  return reqs.length === 0 ? everything : { requirements: reqs.sort(byKey) };
}

/**
 * The structured form used in object specs. `null`/`undefined` selects nothing and `{}` selects everything,
 * like the reference `LabelSelectorAsSelector`. `fieldPath` prefixes the field names in error causes.
 */
export function labelSelectorFromObject(obj: LabelSelectorObject | null | undefined, fieldPath = ''): LabelSelector {
  if (obj === null || obj === undefined) return nothing;
  const p = fieldPath ? `${fieldPath}.` : '';
  const errs: FieldError[] = [];
  const reqs: LabelRequirement[] = [];
  const add = (r: LabelRequirement | FieldError[]) => (Array.isArray(r) ? errs.push(...r) : reqs.push(r));

  for (const [k, v] of Object.entries(obj.matchLabels ?? {})) {
    if (typeof v !== 'string') errs.push(fieldError.typeInvalid(`${p}matchLabels[${k}]`, v, 'must be a string'));
    else add(requirement(k, 'In', [v], `${p}matchLabels`, `${p}matchLabels`, () => `${p}matchLabels[${k}]`));
  }
  const operators: readonly string[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
  (obj.matchExpressions ?? []).forEach((e, i) => {
    const at = `${p}matchExpressions[${i}]`;
    const values = e.values ?? [];
    if (!operators.includes(e.operator)) errs.push(fieldError.notSupported(`${at}.operator`, e.operator, operators));
    else if (!Array.isArray(values) || values.some((v) => typeof v !== 'string'))
      errs.push(fieldError.typeInvalid(`${at}.values`, values, 'must be a list of strings'));
    else add(requirement(String(e.key), e.operator as LabelOperator, values, `${at}.key`, `${at}.values`));
  });
  if (errs.length > 0) throw badRequest(`invalid label selector: ${describe(errs)}`, errs);
  return reqs.length === 0 ? everything : { requirements: reqs.sort(byKey) };
}

/** True when the selector places no constraint (selects everything). */
export function isEmpty(sel: { readonly requirements: readonly unknown[]; readonly matchesNothing?: boolean }): boolean {
  return sel.requirements.length === 0 && !sel.matchesNothing;
}

/** Binary search: requirement values are sorted, and a set may hold thousands. */
function sortedHas(values: readonly string[], v: string): boolean {
  let lo = 0;
  let hi = values.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const m = values[mid] as string;
    if (m === v) return true;
    if (m < v) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function matchesRequirement(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'In':
      return has && sortedHas(r.values, value ?? '');
    case 'NotIn':
      return !has || !sortedHas(r.values, value ?? '');
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      // A label that is not an integer never matches a numeric comparison.
      const have = has ? parseInt64(value ?? '') : undefined;
      const want = parseInt64(r.values[0] ?? '');
      if (have === undefined || want === undefined) return false;
      return r.operator === 'Gt' ? have > want : have < want;
    }
  }
}

export function matchesLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  if (sel.matchesNothing) return false;
  const ls = labels ?? {};
  return sel.requirements.every((r) => matchesRequirement(r, ls));
}
