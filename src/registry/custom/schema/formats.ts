/**
 * The string and number formats whose values the reference checks in custom resources; any other
 * format name is accepted without a check (it only documents the value).
 */
import { isIPv6 } from 'node:net';
import { parseGoDuration } from '../../../util/duration.js';

const re = (source: string) => new RegExp(source, 'i');

const UUID = re('^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$');
const UUID3 = re('^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$');
const UUID4 = re('^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$');
const UUID5 = re('^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$');
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;
const HOSTNAME = /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const MAC = /^(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^(?:[0-9A-Fa-f]{2}[:-]){7}[0-9A-Fa-f]{2}$|^(?:[0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX_COLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_COLOR = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/;
const BSON_OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const ISBN10 = /^(?:\d[- ]?){9}[\dXx]$/;
const ISBN13 = /^(?:\d[- ]?){12}\d$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;

function validDate(y: string, m: string, d: string): boolean {
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
  return day <= days;
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  if (IPV4.test(ip)) return Number(bits) <= 32;
  return isIPv6(ip) && Number(bits) <= 128;
}

function isURI(s: string): boolean {
  try {
    // The reference accepts anything Go's url.Parse accepts: absolute URLs and references alike.
    new URL(s, 'http://relative.invalid/');
    return !/\s/.test(s);
  } catch {
    return false;
  }
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** Checks by format name for string values. */
const STRING_FORMATS: Record<string, (s: string) => boolean> = {
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  email: (s) => EMAIL.test(s),
  hostname: (s) => HOSTNAME.test(s),
  ipv4: (s) => IPV4.test(s),
  ipv6: (s) => isIPv6(s),
  cidr: (s) => isCIDR(s),
  mac: (s) => MAC.test(s),
  uri: (s) => isURI(s),
  byte: (s) => BASE64.test(s),
  date: (s) => {
    const m = DATE.exec(s);
    return !!m && validDate(m[1]!, m[2]!, m[3]!);
  },
  'date-time': (s) => {
    const m = DATE_TIME.exec(s);
    return !!m && validDate(m[1]!, m[2]!, m[3]!) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 61;
  },
  datetime: (s) => STRING_FORMATS['date-time']!(s),
  duration: (s) => parseGoDuration(s) !== undefined,
  hexcolor: (s) => HEX_COLOR.test(s),
  rgbcolor: (s) => {
    const m = RGB_COLOR.exec(s);
    return !!m && [m[1], m[2], m[3]].every((x) => Number(x) <= 255);
  },
  bsonobjectid: (s) => BSON_OBJECT_ID.test(s),
  isbn10: (s) => ISBN10.test(s),
  isbn13: (s) => ISBN13.test(s),
  isbn: (s) => ISBN10.test(s) || ISBN13.test(s),
  ssn: (s) => SSN.test(s),
  creditcard: (s) => {
    const digits = s.replace(/[- ]/g, '');
    return /^\d{13,19}$/.test(digits) && luhn(digits);
  },
};

const INT32 = [-(2 ** 31), 2 ** 31 - 1] as const;
const FLOAT_MAX = 3.4028234663852886e38;

/** Checks by format name for numbers (the value's type was checked already). */
const NUMBER_FORMATS: Record<string, (n: number) => boolean> = {
  int32: (n) => Number.isInteger(n) && n >= INT32[0] && n <= INT32[1],
  int64: (n) => Number.isInteger(n),
  float: (n) => Math.abs(n) <= FLOAT_MAX,
  double: () => true,
};

/** Whether `value` is well-formed for `format`; unknown formats and other value types pass. */
export function formatAccepts(format: string, value: unknown): boolean {
  if (typeof value === 'string') {
    const check = STRING_FORMATS[format];
    return check ? check(value) : true;
  }
  if (typeof value === 'number') {
    const check = NUMBER_FORMATS[format];
    return check ? check(value) : true;
  }
  return true;
}
