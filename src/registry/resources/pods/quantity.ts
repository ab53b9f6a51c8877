/**
 * Resource quantities ("100m", "1Gi", "2e3") as far as pods need them: validity, comparison and the QoS class.
 * Values become plain numbers in base units; that is exact enough for comparisons of real-world requests.
 */
import { isObject } from '../../../api/types.js';

const QUANTITY_RE = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const SUFFIX: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

/** The reference's wording when a quantity does not parse. */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** Parses a quantity (string or JSON number); undefined when it is not one. */
export function parseQuantity(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const m = QUANTITY_RE.exec(v);
  if (!m) return undefined;
  const num = Number(m[1]);
  const suffix = m[2] ?? '';
  const mult = SUFFIX[suffix] ?? 10 ** Number(suffix.slice(1));
  return num * mult;
}

const sameQuantity = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

export type QOSClass = 'BestEffort' | 'Burstable' | 'Guaranteed';

const QOS_RESOURCES = ['cpu', 'memory'] as const;

/**
 * The reference's QoS rules: no cpu/memory requests or limits anywhere -> BestEffort; every container limits
 * both cpu and memory and the requests equal the limits -> Guaranteed; anything else -> Burstable.
 * Requests must already be defaulted from limits.
 */
export function podQOSClass(spec: Record<string, unknown>): QOSClass {
  const containers = [spec.containers, spec.initContainers].flatMap((l) => (Array.isArray(l) ? l : []));
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  for (const c of containers) {
    const res = isObject(c) && isObject(c.resources) ? c.resources : {};
    const req = isObject(res.requests) ? res.requests : {};
    const lim = isObject(res.limits) ? res.limits : {};
    let limited = 0;
    for (const name of QOS_RESOURCES) {
      const r = parseQuantity(req[name]);
      if (r !== undefined && r !== 0) requests.set(name, (requests.get(name) ?? 0) + r);
      const l = parseQuantity(lim[name]);
      if (l !== undefined && l !== 0) {
        limits.set(name, (limits.get(name) ?? 0) + l);
        limited++;
      }
    }
    if (limited < QOS_RESOURCES.length) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const name of QOS_RESOURCES) {
      const r = requests.get(name);
      const l = limits.get(name);
      if (r === undefined || l === undefined || !sameQuantity(r, l)) guaranteed = false;
    }
  }
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
