/**
 * The schema engine of custom resources: compiles one CRD version's `openAPIV3Schema` (structural rules,
 * defaults, CEL rules) into validation, defaulting and the internal Schema (see ../contract.ts).
 */
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { pruneUnknownFields } from '../../../encoding/unknown-fields.js';
import type { CompileCustomSchema, CustomSchema, JsonSchemaProps } from '../contract.js';
import { compileRules, evaluateRules } from './cel-rules.js';
import { applyDefaultsTo, markDefaults } from './defaults.js';
import { internalSchema } from './internal.js';
import { SchemaReader, type Node } from './node.js';
import { checkStructural } from './structural.js';
import { validateValue } from './validate.js';

/** Each `default` must itself be valid where it sits, once unknown fields are pruned from it. */
function checkDefaults(node: Node, path: string, out: FieldError[]): void {
  if (node.hasDefault) {
    const value = pruneUnknownFields(structuredClone(node.default), internalSchema(node));
    const at = `${path}.default`;
    validateValue(value, node, at, out);
    evaluateRules(value, undefined, node, out, at);
    // Keep the pruned form: that is what defaulting writes into objects.
    node.default = value;
  }
  for (const [k, s] of node.properties ?? []) checkDefaults(s, `${path}.properties[${k}]`, out);
  if (node.items) checkDefaults(node.items, `${path}.items`, out);
  const ap = node.additionalProperties;
  if (ap && ap !== true) checkDefaults(ap, `${path}.additionalProperties`, out);
}

export const compileCustomSchema: CompileCustomSchema = (props: JsonSchemaProps, path: string) => {
  const reader = new SchemaReader();
  const root = reader.read(props, path);
  checkStructural(reader, root, path);
  // CEL types and default checks rely on a sound structure: only then are they compiled.
  if (reader.errors.length > 0) return { errors: reader.errors };
  compileRules(reader, root, path);
  if (reader.errors.length > 0) return { errors: reader.errors };
  const defaultErrors: FieldError[] = [];
  checkDefaults(root, path, defaultErrors);
  if (defaultErrors.length > 0) return { errors: defaultErrors };
  markDefaults(root);
  const schema: CustomSchema = {
    schema: internalSchema(root, true),
    applyDefaults(obj: ApiObject): boolean {
      return applyDefaultsTo(obj, root);
    },
    validate(obj: ApiObject, old?: ApiObject): FieldError[] {
      const out: FieldError[] = [];
      validateValue(obj, root, '', out);
      evaluateRules(obj, old, root, out);
      return out;
    },
  };
  return { schema, errors: [] };
};
