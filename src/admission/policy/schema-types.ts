/**
 * CEL types from OpenAPI schemas, for type-checking policy expressions (never for evaluating them): each
 * object schema with properties becomes a declared object type whose fields carry their own types, as the
 * reference's schema-to-declaration mapping does (date-time strings are timestamps, `byte` strings bytes,
 * int-or-string and free-form values `dyn`).
 */
import { Environment } from '@marcbachmann/cel-js';
import type { Schema } from '../../api/schema.js';
import { celScalarType } from '../../cel/index.js';

/** The declared type of a value of `schema`, as a cel-js type string. */
export type CelTypeName = string;

const TIMESTAMP = 'google.protobuf.Timestamp';
const DURATION = 'google.protobuf.Duration';

/**
 * Declares object types in one environment. Types are named by the path they were first met at
 * (`Deployment.spec.template`); a schema object met again (shared definitions such as ObjectMeta, or a
 * recursive one) reuses its first declaration.
 */
export class SchemaTypeDeclarer {
  private readonly declared = new Map<Schema, CelTypeName>();
  private readonly taken = new Set<string>();

  constructor(private readonly env: Environment) {}

  typeOf(schema: Schema | undefined, path: string): CelTypeName {
    if (!schema || schema['x-kubernetes-int-or-string']) return 'dyn';
    const props = schema.properties;
    if (props && Object.keys(props).length > 0) return this.objectType(schema, props, path);
    if (schema['x-kubernetes-preserve-unknown-fields']) return 'dyn';
    switch (schema.type) {
      case 'object': {
        const ap = schema.additionalProperties;
        if (ap === undefined || ap === false) return 'dyn';
        return `map<string, ${ap === true ? 'dyn' : this.typeOf(ap, `${path}.@value`)}>`;
      }
      case 'array':
        return `list<${this.typeOf(schema.items, `${path}.@item`)}>`;
      default:
        return celScalarType(schema.type, schema.format);
    }
  }

  private objectType(schema: Schema, props: Record<string, Schema>, path: string): CelTypeName {
    const known = this.declared.get(schema);
    if (known) return known;
    const name = this.uniqueName(path);
    // Named before its fields are typed: a recursive schema refers to itself by this name.
    this.declared.set(schema, name);
    const fields: Record<string, CelTypeName> = {};
    for (const [field, s] of Object.entries(props)) fields[field] = this.typeOf(s, `${name}.${field}`);
    // A class of its own per type: the library keys types by constructor. Values are never built.
    const ctor = { [name]: class {} }[name];
    this.env.registerType(name, { ctor, fields } as never);
    return name;
  }

  private uniqueName(path: string): string {
    const base = path.replace(/[^A-Za-z0-9_.]/g, '_');
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}${n}`;
    this.taken.add(name);
    return name;
  }
}

/** Conversions the reference's CEL offers between a value and its own type, which cel-js lacks. */
export function registerIdentityConversions(env: Environment): void {
  env.registerFunction(`timestamp(${TIMESTAMP}): ${TIMESTAMP}`, (t: unknown) => t);
  env.registerFunction(`duration(${DURATION}): ${DURATION}`, (d: unknown) => d);
}
