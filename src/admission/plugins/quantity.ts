/**
 * Exact resource quantities ("100m", "1Gi", "2e3") for the plugins that do arithmetic on them (LimitRanger,
 * ResourceQuota, RuntimeClass): parsed to whole nano-units (BigInt, so sums of memory in Ei stay exact),
 * added and compared, and written back in the reference's canonical form, which keeps the notation family
 * (decimal SI, binary SI, exponent) of the value it came from.
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value in units of 10^-9 (finer amounts round up, as the reference rounds them). */
  readonly nano: bigint;
  readonly format: QuantityFormat;
}

const QUANTITY_RE = /^([+-]?)(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const DECIMAL_EXPONENTS: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_POWERS: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_SUFFIXES: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
/** Exponents past this are refused rather than expanded into enormous integers. */
const MAX_EXPONENT = 60;
const NANO = 1_000_000_000n;

export const ZERO: Quantity = { nano: 0n, format: 'DecimalSI' };

/** An integer count (object counts, node ports) as a quantity. */
export const count = (n: number): Quantity => ({ nano: BigInt(n) * NANO, format: 'DecimalSI' });

/** Parses a quantity (a string, or a JSON integer); undefined when it is not one. */
export function parseQuantity(v: unknown): Quantity | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? count(v) : Number.isFinite(v) ? parseQuantity(String(v)) : undefined;
  if (typeof v !== 'string') return undefined;
  const m = QUANTITY_RE.exec(v);
  if (!m) return undefined;
  const [, sign, number, suffix = ''] = m as unknown as [string, string, string, string | undefined];
  const dot = number.indexOf('.');
  const digits = dot < 0 ? number : number.slice(0, dot) + number.slice(dot + 1);
  let exponent = dot < 0 ? 0 : -(number.length - dot - 1);
  let format: QuantityFormat = 'DecimalSI';
  let mantissa = BigInt(digits === '' ? '0' : digits);
  if (suffix in BINARY_POWERS) {
    format = 'BinarySI';
    mantissa *= 1024n ** BigInt(BINARY_POWERS[suffix]!);
  } else if (suffix in DECIMAL_EXPONENTS) {
    exponent += DECIMAL_EXPONENTS[suffix]!;
  } else {
    format = 'DecimalExponent';
    exponent += Number(suffix.slice(1));
  }
  exponent += 9;
  if (Math.abs(exponent) > MAX_EXPONENT) return undefined;
  let nano: bigint;
  if (exponent >= 0) nano = mantissa * 10n ** BigInt(exponent);
  else {
    const div = 10n ** BigInt(-exponent);
    nano = (mantissa + div - 1n) / div;
  }
  return { nano: sign === '-' ? -nano : nano, format };
}

/** a + b, in a's notation (the reference keeps the receiver's format). */
export const addQuantity = (a: Quantity, b: Quantity): Quantity => ({ nano: a.nano + b.nano, format: a.format });
export const subtractQuantity = (a: Quantity, b: Quantity): Quantity => ({ nano: a.nano - b.nano, format: a.format });
export const compareQuantity = (a: Quantity, b: Quantity): number => (a.nano < b.nano ? -1 : a.nano > b.nano ? 1 : 0);

/** The canonical text: the largest suffix that leaves a whole number (binary suffixes for binary values of 1Ki and up). */
export function formatQuantity(q: Quantity): string {
  if (q.nano === 0n) return '0';
  const sign = q.nano < 0n ? '-' : '';
  let v = q.nano < 0n ? -q.nano : q.nano;
  if (q.format === 'BinarySI' && v % NANO === 0n && v >= 1024n * NANO) {
    let units = v / NANO;
    let power = 0;
    while (power < BINARY_SUFFIXES.length - 1 && units % 1024n === 0n) {
      units /= 1024n;
      power++;
    }
    return `${sign}${units}${BINARY_SUFFIXES[power]}`;
  }
  let exponent = -9;
  while (exponent < 18 && v % 1000n === 0n) {
    v /= 1000n;
    exponent += 3;
  }
  if (q.format === 'DecimalExponent') return `${sign}${v}${exponent === 0 ? '' : `e${exponent}`}`;
  return `${sign}${v}${DECIMAL_SUFFIXES[exponent]}`;
}

/** Rounds a nano amount up (away from zero) to whole multiples of `unit`, as the reference's Value and MilliValue do. */
function roundAway(nano: bigint, unit: bigint): bigint {
  const whole = nano / unit;
  if (whole * unit === nano) return whole;
  return nano < 0n ? whole - 1n : whole + 1n;
}

/** The value in whole units, rounded up. */
export const unitValue = (q: Quantity): bigint => roundAway(q.nano, NANO);
/** The value in thousandths, rounded up. */
export const milliValue = (q: Quantity): bigint => roundAway(q.nano, 1_000_000n);

/** The largest whole value whose milli-value still fits a signed 64-bit integer. */
const MAX_MILLI_VALUE = (2n ** 63n - 1n) / 1000n;

/** Whether `q` can be compared in thousandths without overflowing the reference's 64-bit arithmetic. */
export const fitsMilli = (q: Quantity): boolean => unitValue(q) <= MAX_MILLI_VALUE;

/**
 * The values the reference compares quantities by: thousandths when every one of them fits, else whole
 * units (a missing quantity counts as zero).
 */
export function comparableValues(...qs: (Quantity | undefined)[]): bigint[] {
  const all = qs.map((q) => q ?? ZERO);
  return all.every(fitsMilli) ? all.map(milliValue) : all.map(unitValue);
}
