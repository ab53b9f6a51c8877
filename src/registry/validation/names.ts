/**
 * String validators with the reference server's rules and message wording (public API facts). Each returns
 * the list of problems; an empty list means the value is valid. Callers turn them into FieldErrors.
 */
import { isIP as netIsIP, isIPv4 as netIsIPv4 } from 'node:net';

// Lengths are counted in bytes, as the reference does; for the ASCII-only patterns this equals characters.
const byteLength = (v: string) => Buffer.byteLength(v, 'utf8');

export const maxLenError = (length: number) => `must be no more than ${length} characters`;
export const emptyError = () => 'must be non-empty';
export const inclusiveRangeError = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;

/** The reference's regex message form: `<msg> (e.g. 'a' or 'b', regex used for validation is '<fmt>')`. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}'`).join(' or ')}, regex used for validation is '${fmt}')`;
}

const anchored = (fmt: string) => new RegExp(`^(?:${fmt})$`);

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;
const dns1123LabelRe = anchored(dns1123LabelFmt);

const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const dns1123SubdomainRe = anchored(dns1123SubdomainFmt);

const qnameCharFmt = '[A-Za-z0-9]';
const qnameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${qnameCharFmt}${qnameExtCharFmt}*)?${qnameCharFmt}`;
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const QUALIFIED_NAME_MAX_LENGTH = 63;
const qualifiedNameRe = anchored(qualifiedNameFmt);

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LABEL_VALUE_MAX_LENGTH = 63;
const labelValueRe = anchored(labelValueFmt);

const cIdentifierFmt = '[A-Za-z_][A-Za-z0-9_]*';
const cIdentifierErrMsg =
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'";
const cIdentifierRe = anchored(cIdentifierFmt);

export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(v)) {
    // A valid subdomain that is not a label can only differ by its dots (length was checked above).
    if (dns1123SubdomainRe.test(v)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(v)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

const NAME_MAY_NOT_BE = ['.', '..'];
const NAME_MAY_NOT_CONTAIN = ['/', '%'];

/** A name that ends a URL path (spec 2.1): not `.`/`..`, no `/` or `%`. */
export function isPathSegmentName(v: string): string[] {
  for (const bad of NAME_MAY_NOT_BE) if (v === bad) return [`may not be '${bad}'`];
  return isPathSegmentPrefix(v);
}

/** A generateName prefix for path-segment names: `.` is fine there because a suffix follows. */
export function isPathSegmentPrefix(v: string): string[] {
  return NAME_MAY_NOT_CONTAIN.filter((bad) => v.includes(bad)).map((bad) => `may not contain '${bad}'`);
}

/** Label keys, annotation keys, finalizers: `[prefix/]name`. */
export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRe.test(name)) {
    errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(v)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

export function isCIdentifier(v: string): string[] {
  return cIdentifierRe.test(v) ? [] : [regexError(cIdentifierErrMsg, cIdentifierFmt, 'my_name', 'MY_NAME', 'MyName')];
}

export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

export function isIPv4(v: string): string[] {
  return netIsIPv4(v) ? [] : ['must be a valid IPv4 address'];
}

export function isIP(v: string): string[] {
  return netIsIP(v) !== 0 ? [] : ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
}

export type NameRule = 'subdomain' | 'label' | 'path-segment';

/**
 * Validates a name or, with `prefix`, a generateName. A prefix gets a random suffix appended, so a trailing
 * '-' is legal there: it is masked with an alphanumeric before the check, as the reference does.
 */
export function validateName(rule: NameRule, v: string, prefix = false): string[] {
  if (rule === 'path-segment') return prefix ? isPathSegmentPrefix(v) : isPathSegmentName(v);
  const value = prefix ? maskTrailingDash(v) : v;
  return rule === 'label' ? isDNS1123Label(value) : isDNS1123Subdomain(value);
}

function maskTrailingDash(v: string): string {
  return v.length > 1 && v.endsWith('-') ? `${v.slice(0, -1)}a` : v;
}
