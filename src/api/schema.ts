/**
 * A schema in OpenAPI v3 form (a JSON Schema subset). It drives the served OpenAPI documents (`kubectl
 * explain`), unknown-field detection, strategic merge patch (patch strategy and merge keys) and server-side
 * apply (list types, map keys, map types).
 */
export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: (string | number)[];
  default?: unknown;
  /** Any type (int-or-string, raw extensions). */
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-unions'?: unknown[];
}
