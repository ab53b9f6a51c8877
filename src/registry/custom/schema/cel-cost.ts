/**
 * A static estimate of a rule's worst-case cost, in the spirit of the reference's estimator: every
 * comprehension (`all`, `exists`, `map`, `filter`, ...) multiplies its body by the most elements its range
 * can hold (`maxItems`, `maxProperties`, else as many as fit in a request), and string scans cost with
 * the string's `maxLength`. Rules whose estimate exceeds the limits are refused when the CRD is written.
 */
import type { Node } from './node.js';

/** The reference's limits: per expression, and for all expressions of one schema. */
export const PER_RULE_COST_LIMIT = 10_000_000;
export const TOTAL_COST_LIMIT = 100_000_000;
/** The largest request body: an unbounded list can hold no more elements than fit in it. */
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

const MACROS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'transformList', 'transformMap']);
const STRING_SCANS = new Set(['contains', 'startsWith', 'endsWith', 'matches', 'indexOf', 'lastIndexOf', 'split', 'replace', 'find', 'findAll', 'lowerAscii', 'upperAscii', 'trim']);

/** Smallest JSON encoding of one element, plus a separator: bounds how many fit in a request. */
function minElementBytes(n: Node | undefined): number {
  if (!n || n.intOrString) return 2;
  switch (n.type) {
    case 'string':
      return 3 + (n.minLength ?? 0);
    case 'boolean':
      return 5;
    case 'integer':
    case 'number':
      return 2;
    default:
      return 3;
  }
}

/** How many elements a list or map node can hold. */
export function nodeCardinality(n: Node | undefined): number {
  if (!n) return Math.floor(MAX_REQUEST_BYTES / 2);
  if (n.type === 'array') return n.maxItems ?? Math.floor(MAX_REQUEST_BYTES / minElementBytes(n.items));
  const ap = n.additionalProperties;
  // A map entry is at least `"":` plus its value.
  return n.maxProperties ?? Math.floor(MAX_REQUEST_BYTES / (4 + minElementBytes(ap && ap !== true ? ap : undefined)));
}

interface Ast {
  op?: string;
  args?: unknown;
}

const stringCost = (n: Node | undefined): number => Math.ceil(0.1 * (n?.maxLength ?? MAX_REQUEST_BYTES));

/** The estimated cost of one evaluation of `ast` with `self` described by `self`. */
export function estimateRuleCost(ast: unknown, self: Node): number {
  const resolve = (n: Ast | undefined, scope: Map<string, Node | undefined>): Node | undefined => {
    if (!n) return undefined;
    if (n.op === 'id' && typeof n.args === 'string') return n.args === 'self' ? self : scope.get(n.args);
    if ((n.op === '.' || n.op === '.?') && Array.isArray(n.args)) {
      const parent = resolve(n.args[0] as Ast, scope);
      const name = String(n.args[1]);
      const ap = parent?.additionalProperties;
      return parent?.properties?.get(name) ?? (ap && ap !== true ? ap : undefined);
    }
    return undefined;
  };
  const cost = (n: unknown, scope: Map<string, Node | undefined>): number => {
    if (Array.isArray(n)) return n.reduce((sum: number, x) => sum + cost(x, scope), 0);
    if (n === null || typeof n !== 'object') return 0;
    const a = n as Ast;
    if (a.op === 'rcall' && Array.isArray(a.args)) {
      const [name, target, rest] = a.args as [string, Ast, unknown[]];
      if (MACROS.has(name) && Array.isArray(rest) && (rest[0] as Ast | undefined)?.op === 'id') {
        const range = resolve(target, scope);
        const element = range?.type === 'array' ? range.items : undefined;
        const inner = new Map(scope);
        inner.set(String((rest[0] as Ast).args), element);
        return cost(target, scope) + nodeCardinality(range) * (1 + cost(rest.slice(1), inner));
      }
      const scan = STRING_SCANS.has(name) ? stringCost(resolve(target, scope)) : 0;
      return 1 + scan + cost(target, scope) + cost(rest, scope);
    }
    if (typeof a.op === 'string') return 1 + (typeof a.args === 'object' ? cost(a.args, scope) : 0);
    return Object.values(n).reduce((sum: number, x) => sum + (typeof x === 'object' ? cost(x, scope) : 0), 0);
  };
  return cost(ast, new Map());
}

/** Why an estimate is refused, with how far over the limit it is (the factor as the reference reports it). */
export function costExceeded(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const times = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${times}: bound what it reads (maxItems on lists, maxProperties on maps, maxLength on strings) or make the rule simpler`;
}
