/**
 * The compiled form of one node of a CRD version's `openAPIV3Schema`: what validation, defaulting, CEL
 * and the internal Schema need, read once from the user's JSON (numbers checked, patterns compiled).
 */
import { quote, type FieldError } from '../../../errors/index.js';

export const SCALAR_TYPES = ['string', 'number', 'integer', 'boolean'] as const;
export const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'] as const;

/** A compiled `x-kubernetes-validations` entry (filled by cel-rules.ts). */
export interface CompiledRule {
  readonly rule: string;
  readonly index: number;
  readonly usesOldSelf: boolean;
  readonly optionalOldSelf: boolean;
  readonly message?: string;
  readonly reason: string;
  /** Relative path appended to the node's path (`.spec.replicas`, `['a.b']`), already in output form. */
  readonly fieldPath?: string;
  evaluate(vars: Record<string, unknown>, budget: import('../../../cel/index.js').EvaluationBudget): unknown;
  evaluateMessage?(vars: Record<string, unknown>, budget: import('../../../cel/index.js').EvaluationBudget): unknown;
}

export interface Node {
  type?: string;
  format?: string;
  description?: string;
  nullable: boolean;
  hasDefault: boolean;
  default?: unknown;
  enum?: unknown[];
  pattern?: RegExp;
  patternText?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum: boolean;
  exclusiveMaximum: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  required?: string[];
  properties?: Map<string, Node>;
  /** A schema for map values; `true` allows any value (unchecked). */
  additionalProperties?: Node | true;
  items?: Node;
  allOf?: Node[];
  anyOf?: Node[];
  oneOf?: Node[];
  not?: Node;
  preserveUnknown: boolean;
  intOrString: boolean;
  embedded: boolean;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  mapType?: 'atomic' | 'granular';
  /** The `x-kubernetes-validations` as written (compiled into `rules` later). */
  rawRules?: unknown[];
  rules?: CompiledRule[];
  /** Whether this node or anything below it carries rules (skips CEL walks of rule-free subtrees). */
  hasRulesBelow?: boolean;
}

/** Keys a CRD schema may carry; others are refused as unknown (the reference's JSONSchemaProps fields). */
const KNOWN_KEYS = new Set([
  'id', '$schema', '$ref', 'description', 'type', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum',
  'maxProperties', 'minProperties', 'required', 'items', 'allOf', 'oneOf', 'anyOf', 'not', 'properties', 'additionalProperties',
  'patternProperties', 'dependencies', 'additionalItems', 'definitions', 'externalDocs', 'example', 'nullable',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-validations',
]);

/** Keywords structural schemas forbid outright, with the reason the error gives. */
const FORBIDDEN_KEYS: Record<string, string> = {
  $ref: '$ref is not supported',
  definitions: 'definitions are not supported',
  dependencies: 'dependencies are not supported',
  additionalItems: 'additionalItems are not supported',
  patternProperties: 'patternProperties are not supported',
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class SchemaReader {
  readonly errors: FieldError[] = [];

  private add(e: FieldError): void {
    this.errors.push(e);
  }

  invalid(field: string, value: unknown, detail: string): void {
    this.add({ type: 'FieldValueInvalid', field, message: `Invalid value: ${quote(value)}: ${detail}` });
  }
  forbidden(field: string, detail: string): void {
    this.add({ type: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
  }
  required(field: string, detail: string): void {
    this.add({ type: 'FieldValueRequired', field, message: `Required value: ${detail}` });
  }
  tooLongField(field: string, max: number): void {
    this.add({ type: 'FieldValueTooLong', field, message: `Too long: may not be longer than ${max}` });
  }
  notSupported(field: string, value: unknown, allowed: readonly string[]): void {
    this.add({
      type: 'FieldValueNotSupported',
      field,
      message: `Unsupported value: ${quote(value)}: supported values: ${allowed.map((a) => `"${a}"`).join(', ')}`,
    });
  }

  private num(props: Record<string, unknown>, key: string, path: string, whole = false): number | undefined {
    const v = props[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || (whole && (!Number.isInteger(v) || v < 0))) {
      this.invalid(`${path}.${key}`, v, whole ? 'must be a non-negative integer' : 'must be a number');
      return undefined;
    }
    return v;
  }

  private bool(props: Record<string, unknown>, key: string, path: string): boolean {
    const v = props[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') {
      this.invalid(`${path}.${key}`, v, 'must be a boolean');
      return false;
    }
    return v;
  }

  private strings(props: Record<string, unknown>, key: string, path: string): string[] | undefined {
    const v = props[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      this.invalid(`${path}.${key}`, v, 'must be a list of strings');
      return undefined;
    }
    return v as string[];
  }

  private children(props: Record<string, unknown>, key: string, path: string): Node[] | undefined {
    const v = props[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) {
      this.invalid(`${path}.${key}`, v, 'must be a list of schemas');
      return undefined;
    }
    return v.map((x, i) => this.read(x, `${path}.${key}[${i}]`));
  }

  /** Reads one node and everything below it; problems with the JSON itself are recorded, never thrown. */
  read(raw: unknown, path: string): Node {
    const node: Node = { nullable: false, hasDefault: false, exclusiveMinimum: false, exclusiveMaximum: false, preserveUnknown: false, intOrString: false, embedded: false };
    if (!isRecord(raw)) {
      this.invalid(path, raw, 'must be a schema object');
      return node;
    }
    for (const key of Object.keys(raw)) {
      if (!KNOWN_KEYS.has(key)) this.forbidden(`${path}.${key}`, 'not a field of a schema');
      else if (FORBIDDEN_KEYS[key] && raw[key] !== undefined && raw[key] !== null) this.forbidden(`${path}.${key}`, FORBIDDEN_KEYS[key]);
    }
    const type = raw.type;
    if (type !== undefined && type !== null && type !== '') {
      if (typeof type !== 'string' || !(OPENAPI_TYPES as readonly string[]).includes(type)) this.notSupported(`${path}.type`, type, OPENAPI_TYPES);
      else node.type = type;
    }
    if (typeof raw.format === 'string' && raw.format !== '') node.format = raw.format;
    if (typeof raw.description === 'string' && raw.description !== '') node.description = raw.description;
    node.nullable = this.bool(raw, 'nullable', path);
    if (raw.default !== undefined) {
      node.hasDefault = true;
      node.default = raw.default;
    }
    if (raw.enum !== undefined && raw.enum !== null) {
      if (!Array.isArray(raw.enum)) this.invalid(`${path}.enum`, raw.enum, 'must be a list of values');
      else node.enum = raw.enum;
    }
    if (raw.pattern !== undefined && raw.pattern !== null && raw.pattern !== '') {
      if (typeof raw.pattern !== 'string') this.invalid(`${path}.pattern`, raw.pattern, 'must be a string');
      else {
        try {
          node.pattern = new RegExp(raw.pattern, 'u');
          node.patternText = raw.pattern;
        } catch (e) {
          this.invalid(`${path}.pattern`, raw.pattern, `must be a valid regular expression, but isn't: ${(e as Error).message}`);
        }
      }
    }
    node.minimum = this.num(raw, 'minimum', path);
    node.maximum = this.num(raw, 'maximum', path);
    node.exclusiveMinimum = this.bool(raw, 'exclusiveMinimum', path);
    node.exclusiveMaximum = this.bool(raw, 'exclusiveMaximum', path);
    node.multipleOf = this.num(raw, 'multipleOf', path);
    if (node.multipleOf !== undefined && node.multipleOf <= 0) this.invalid(`${path}.multipleOf`, node.multipleOf, 'must be greater than zero');
    node.minLength = this.num(raw, 'minLength', path, true);
    node.maxLength = this.num(raw, 'maxLength', path, true);
    node.minItems = this.num(raw, 'minItems', path, true);
    node.maxItems = this.num(raw, 'maxItems', path, true);
    node.minProperties = this.num(raw, 'minProperties', path, true);
    node.maxProperties = this.num(raw, 'maxProperties', path, true);
    node.required = this.strings(raw, 'required', path);
    if (raw.uniqueItems === true) this.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be true: its cost grows with the square of the list length (use x-kubernetes-list-type: set)');
    if (raw.properties !== undefined && raw.properties !== null) {
      if (!isRecord(raw.properties)) this.invalid(`${path}.properties`, raw.properties, 'must be a map of schemas');
      else {
        node.properties = new Map();
        for (const [k, v] of Object.entries(raw.properties)) node.properties.set(k, this.read(v, `${path}.properties[${k}]`));
      }
    }
    const ap = raw.additionalProperties;
    if (ap !== undefined && ap !== null) {
      if (ap === false) this.forbidden(`${path}.additionalProperties`, 'additionalProperties may not be false');
      else if (ap === true) node.additionalProperties = true;
      else node.additionalProperties = this.read(ap, `${path}.additionalProperties`);
      if (node.properties) this.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties may not both be set');
    }
    if (raw.items !== undefined && raw.items !== null) {
      if (Array.isArray(raw.items)) this.forbidden(`${path}.items`, 'items must be one schema, not a list of schemas');
      else node.items = this.read(raw.items, `${path}.items`);
    }
    node.allOf = this.children(raw, 'allOf', path);
    node.anyOf = this.children(raw, 'anyOf', path);
    node.oneOf = this.children(raw, 'oneOf', path);
    if (raw.not !== undefined && raw.not !== null) node.not = this.read(raw.not, `${path}.not`);
    const pu = raw['x-kubernetes-preserve-unknown-fields'];
    if (pu === false) this.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, pu, 'must be true or undefined');
    node.preserveUnknown = this.bool(raw, 'x-kubernetes-preserve-unknown-fields', path);
    node.intOrString = this.bool(raw, 'x-kubernetes-int-or-string', path);
    node.embedded = this.bool(raw, 'x-kubernetes-embedded-resource', path);
    const lt = raw['x-kubernetes-list-type'];
    if (lt !== undefined && lt !== null) {
      if (lt !== 'atomic' && lt !== 'set' && lt !== 'map') this.notSupported(`${path}.x-kubernetes-list-type`, lt, ['atomic', 'set', 'map']);
      else node.listType = lt;
    }
    node.listMapKeys = this.strings(raw, 'x-kubernetes-list-map-keys', path);
    const mt = raw['x-kubernetes-map-type'];
    if (mt !== undefined && mt !== null) {
      if (mt !== 'atomic' && mt !== 'granular') this.notSupported(`${path}.x-kubernetes-map-type`, mt, ['granular', 'atomic']);
      else node.mapType = mt;
    }
    const rules = raw['x-kubernetes-validations'];
    if (rules !== undefined && rules !== null) {
      if (!Array.isArray(rules)) this.invalid(`${path}.x-kubernetes-validations`, rules, 'must be a list of rules');
      else if (rules.length > 0) node.rawRules = rules;
    }
    return node;
  }
}
