/**
 * CEL's view of a custom resource's values, guided by the schema as the reference maps it: declared
 * objects become typed objects, `integer` values ints, `number` values doubles, `date-time` strings
 * timestamps, `duration` strings durations, `byte` strings bytes, int-or-string and free-form values
 * dynamic. Checking uses declared types; evaluation runs on the converted plain values.
 */
import { Environment } from '@marcbachmann/cel-js';
import { celScalarType, celValue } from '../../../cel/index.js';
import { parseGoDuration } from '../../../util/duration.js';
import type { Node } from './node.js';

const TIMESTAMP = 'google.protobuf.Timestamp';
const DURATION = 'google.protobuf.Duration';

/** A fresh environment as CRD rules see it: optional types on, mixed literals allowed. */
export function ruleEnvironment(): Environment {
  const env = new Environment({ homogeneousAggregateLiterals: false, enableOptionalTypes: true });
  env.registerFunction(`timestamp(${TIMESTAMP}): ${TIMESTAMP}`, (t: unknown) => t);
  env.registerFunction(`duration(${DURATION}): ${DURATION}`, (d: unknown) => d);
  return env;
}

/** The library's own duration class (not exported), so converted values behave as `duration(...)` ones. */
const DurationClass = (new Environment().evaluate('duration("1s")') as object).constructor as new (seconds: bigint | number, nanos?: number) => unknown;

function durationValue(text: string): unknown {
  const ms = parseGoDuration(text);
  if (ms === undefined) return text;
  const ns = BigInt(Math.round(ms * 1e6));
  return new DurationClass(ns / 1_000_000_000n, Number(ns % 1_000_000_000n));
}

/** Converts `v` for evaluation, following `node` where it describes the value. */
export function toCel(v: unknown, node: Node | undefined): unknown {
  if (v === null || v === undefined || !node) return celValue(v);
  if (node.intOrString) return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
  switch (node.type) {
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
    case 'number':
      return v;
    case 'string':
      if (typeof v !== 'string') return v;
      if (node.format === 'date-time') {
        const t = new Date(v);
        return Number.isNaN(t.getTime()) ? v : t;
      }
      if (node.format === 'duration') return durationValue(v);
      if (node.format === 'byte') return new Uint8Array(Buffer.from(v, 'base64'));
      return v;
    case 'array':
      return Array.isArray(v) ? v.map((x) => toCel(x, node.items)) : celValue(v);
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) return celValue(v);
      const out: Record<string, unknown> = {};
      const ap = node.additionalProperties;
      for (const [k, x] of Object.entries(v)) {
        const s = node.properties?.get(k) ?? (ap && ap !== true ? ap : undefined);
        out[k] = toCel(x, s);
      }
      return out;
    }
    default:
      return celValue(v);
  }
}

/** Declares the object types of rule-carrying nodes in one (typed) environment, for checking only. */
export class RuleTypes {
  private readonly declared = new Map<Node, string>();
  private readonly taken = new Set<string>();

  constructor(private readonly env: Environment) {}

  typeOf(node: Node | undefined, name: string): string {
    if (!node || node.intOrString) return 'dyn';
    if (node.properties && node.properties.size > 0 && !node.embedded) return this.objectType(node, node.properties, name);
    switch (node.type) {
      case 'object': {
        const ap = node.additionalProperties;
        if (node.embedded || node.preserveUnknown || ap === undefined || ap === true) return 'dyn';
        return `map<string, ${this.typeOf(ap, `${name}.@value`)}>`;
      }
      case 'array':
        return `list<${this.typeOf(node.items, `${name}.@item`)}>`;
      default:
        return celScalarType(node.type, node.format);
    }
  }

  private objectType(node: Node, props: Map<string, Node>, name: string): string {
    const known = this.declared.get(node);
    if (known) return known;
    let typeName = name.replace(/[^A-Za-z0-9_.]/g, '_');
    for (let n = 2; this.taken.has(typeName); n++) typeName = `${name.replace(/[^A-Za-z0-9_.]/g, '_')}${n}`;
    this.taken.add(typeName);
    this.declared.set(node, typeName);
    const fields: Record<string, string> = {};
    for (const [k, s] of props) fields[k] = this.typeOf(s, `${typeName}.${k}`);
    // A class per type: the library tells declared types apart by constructor; no values are built.
    const ctor = { [typeName]: class {} }[typeName];
    this.env.registerType(typeName, { ctor, fields } as never);
    return typeName;
  }
}
