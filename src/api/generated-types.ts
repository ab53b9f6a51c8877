/** Shapes of the tables in `generated/` (made by scripts/generate-api.ts from the reference data). */

import type { GroupVersionKind } from './types.js';

/** One OpenAPI v2 definition as the reference states it, with `$ref`s naming other neutral definitions. */
export interface Definition {
  type?: string;
  format?: string;
  $ref?: string;
  properties?: Record<string, Definition>;
  additionalProperties?: Definition | boolean;
  items?: Definition;
  required?: string[];
  enum?: (string | number)[];
  default?: unknown;
  'x-kubernetes-group-version-kind'?: GroupVersionKind[];
  [extension: `x-${string}`]: unknown;
}

/** Definition name (without the `io.<maker>.` root, e.g. `api.apps.v1.Deployment`) -> definition. */
export type DefinitionTable = Record<string, Definition>;

export interface GeneratedSubresource {
  name: string;
  /** The kind its body has (autoscaling/v1 Scale for `scale`, the parent's kind for `status`). */
  group: string;
  version: string;
  kind: string;
  definition?: string;
  /** Discovery verbs; connect subresources (exec, proxy) list lowercase HTTP methods as the reference does. */
  verbs: string[];
}

/** One resource of one group/version as the reference serves it. */
export interface GeneratedResource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  definition?: string;
  listDefinition?: string;
  verbs: string[];
  subresources: GeneratedSubresource[];
}

/** A protobuf field as the codec reads it (see encoding/protobuf/wire.ts). */
export interface GeneratedField {
  no: number;
  type: string;
  message?: string;
  repeated?: boolean;
  mapValue?: { type: string; message?: string };
  keep?: boolean;
  inline?: boolean;
}

/** Proto message name (without the `<maker>.io.` package root) -> JSON field name -> field. */
export type GeneratedMessages = Record<string, Record<string, GeneratedField>>;
