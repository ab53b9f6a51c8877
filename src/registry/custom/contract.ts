/**
 * The seams between the parts that serve custom resources: the compiled schema of one CRD version (made by
 * ./schema/, used by the CRD's own validation and by the custom resource types built from it).
 */
import type { ApiObject } from '../../api/types.js';
import type { Schema } from '../../api/index.js';
import type { FieldError } from '../../errors/index.js';

/** `spec.versions[].schema.openAPIV3Schema` of a CRD as users write it (the reference's JSONSchemaProps). */
export type JsonSchemaProps = Record<string, unknown>;

/** One version's schema, compiled once when the CRD is read; every method is safe on any input. */
export interface CustomSchema {
  /** The internal form: served OpenAPI, unknown-field pruning and warnings, server-side apply list/map types. */
  readonly schema: Schema;
  /**
   * Fills `default`s in place, as the reference does on decoding a request body and an object read from
   * storage; answers whether any default was filled in.
   */
  applyDefaults(obj: ApiObject): boolean;
  /**
   * Every schema violation (types, formats, enum, pattern, bounds, required, nullable, list uniqueness) and
   * every failing `x-kubernetes-validations` rule; `old` (an update) enables transition rules. Field paths
   * start at the object root (`spec.replicas`, `spec.items[2].name`).
   */
  validate(obj: ApiObject, old?: ApiObject): FieldError[];
}

/**
 * Compiles a version's schema. Problems (structural-schema rules, bad CEL, bad patterns, estimated rule
 * cost over the limit) are answered as field errors whose paths start with `path`
 * (e.g. `spec.versions[0].schema.openAPIV3Schema`); `schema` is set only when there are none.
 */
export type CompileCustomSchema = (props: JsonSchemaProps, path: string) => { schema?: CustomSchema; errors: FieldError[] };
