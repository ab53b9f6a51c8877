/**
 * CronJob schedules and time zones, checked as the reference does: the standard 5-field cron syntax with
 * the `@hourly`-style descriptors and `@every <duration>` (the reference's cron parser), error texts
 * included, and IANA time zone names.
 */

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

/** minute, hour, day of month, month, day of week. */
const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

class CronError extends Error {}

/** Go's `strconv.Atoi` then the non-negative rule. */
function parseCount(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseValue(expr: string, names?: Record<string, number>): number {
  const named = names?.[expr.toLowerCase()];
  return named ?? parseCount(expr);
}

/** One comma-separated part of a field: `*`, `?`, `n`, `a-b`, each optionally `/step`. */
function checkRange(expr: string, b: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = b.min;
    end = b.max;
  } else {
    start = parseValue(lowAndHigh[0] ?? '', b.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseValue(lowAndHigh[1] ?? '', b.names);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseCount(rangeAndStep[1] ?? '');
    // `n/step` means `n-max/step`.
    if (lowAndHigh.length === 1) end = b.max;
  } else if (rangeAndStep.length > 2) {
    throw new CronError(`too many slashes: ${expr}`);
  }
  if (start < b.min) throw new CronError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new CronError(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
}

const DURATION_UNITS = new Set(['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h']);

/** Go's `time.ParseDuration` syntax: `1h30m`, `90s`, `1.5h`, `-2m`, `0`. */
export function isGoDuration(s: string): boolean {
  if (s === '0' || s === '+0' || s === '-0') return true;
  const body = s.replace(/^[+-]/, '');
  if (body === '') return false;
  const re = /(\d+\.?\d*|\.\d+)([a-zµμ]+)/gy;
  let pos = 0;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    if (!DURATION_UNITS.has(m[2] ?? '')) return false;
    pos = re.lastIndex;
  }
  return pos === body.length;
}

function checkDescriptor(spec: string): void {
  if (DESCRIPTORS.has(spec)) return;
  const every = '@every ';
  if (spec.startsWith(every)) {
    const d = spec.slice(every.length);
    if (!isGoDuration(d)) throw new CronError(`failed to parse duration ${spec}: time: invalid duration ${JSON.stringify(d)}`);
    return;
  }
  throw new CronError(`unrecognized descriptor: ${spec}`);
}

/** The parser's own problem with a schedule (its error text), or undefined when it parses. */
export function cronScheduleError(schedule: string): string | undefined {
  try {
    let spec = schedule;
    if (spec.length === 0) throw new CronError('empty spec string');
    if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
      const space = spec.indexOf(' ');
      const zone = spec.slice(spec.indexOf('=') + 1, space < 0 ? undefined : space);
      const zoneError = timeZoneError(zone);
      if (zoneError) throw new CronError(`provided bad location ${zone}: ${zoneError}`);
      spec = space < 0 ? '' : spec.slice(space).trim();
    }
    if (spec.startsWith('@')) {
      checkDescriptor(spec);
      return undefined;
    }
    const fields = spec.split(/\s+/).filter((f) => f !== '');
    if (fields.length !== FIELDS.length) throw new CronError(`expected exactly ${FIELDS.length} fields, found ${fields.length}: [${fields.join(' ')}]`);
    fields.forEach((f, i) => {
      for (const part of f.split(',').filter((p) => p !== '')) checkRange(part, FIELDS[i] as Bounds);
    });
    return undefined;
  } catch (e) {
    if (e instanceof CronError) return e.message;
    throw e;
  }
}

/** Go's `time.LoadLocation` error text for a zone it cannot load, or undefined for a known zone. */
export function timeZoneError(zone: string): string | undefined {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return undefined;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    // Zone names are file names to the reference: their case matters.
    if (resolved !== zone && resolved.toLowerCase() === zone.toLowerCase()) return `unknown time zone ${zone}`;
    return undefined;
  } catch {
    return `unknown time zone ${zone}`;
  }
}

// Each part of an IANA name: ASCII letters, '.', '-', '_', plus digits and '+' for legacy names.
const ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** Problems with a CronJob's `timeZone` (the reference's `validateTimeZone` wording). */
export function timeZoneProblems(zone: string): string[] {
  if (zone.length === 0) return ['timeZone must be nil or non-empty string'];
  for (const part of zone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !ZONE_PART.test(part)) return [`unknown time zone ${zone}`];
  }
  const problems: string[] = [];
  if (zone.toLowerCase() === 'local') problems.push('timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones');
  const loadError = timeZoneError(zone);
  if (loadError) problems.push(loadError);
  return problems;
}
