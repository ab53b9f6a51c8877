/**
 * The rules of one entry of a CRD's `spec.versions`, with the reference's field paths and wording: name,
 * deprecation warning, the schema (compiled by ../../custom/schema), subresources, printer columns and
 * selectable fields. The whole list (unique names, one storage version) is checked in validation.ts.
 */
import { fieldError, type FieldError } from '../../../errors/index.js';
import { JsonPathError, parseJsonPath } from '../../../util/jsonpath.js';
import { compileCustomSchema } from '../../custom/schema/index.js';
import { isDNS1035Label, required, tooMany } from '../admissionregistration/rules.js';
import { FieldReader, isRec, type Rec } from '../events/fields.js';

export const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
export const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
export const MAX_SELECTABLE_FIELDS = 8;
export const MAX_DEPRECATION_WARNING = 256;
/** Root schema keys allowed when the status subresource is on, so that `properties.status` holds all of status. */
const ROOT_KEYS_WITH_STATUS = new Map([
  ['description', 'Description'], ['type', 'Type'], ['format', 'Format'], ['title', 'Title'], ['maximum', 'Maximum'],
  ['exclusiveMaximum', 'ExclusiveMaximum'], ['minimum', 'Minimum'], ['exclusiveMinimum', 'ExclusiveMinimum'],
  ['maxLength', 'MaxLength'], ['minLength', 'MinLength'], ['pattern', 'Pattern'], ['maxItems', 'MaxItems'],
  ['minItems', 'MinItems'], ['uniqueItems', 'UniqueItems'], ['multipleOf', 'MultipleOf'], ['required', 'Required'],
  ['items', 'Items'], ['properties', 'Properties'], ['externalDocs', 'ExternalDocs'], ['example', 'Example'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields'], ['x-kubernetes-validations', 'XValidations'],
]);

/** The reference's check of scale and printer-column paths: a dot-notation path starting with `.`. */
export function simpleJsonPathErrors(s: string, path: string): FieldError[] {
  if (s === '') return [fieldError.invalid(path, s, 'must not be empty')];
  if (!s.startsWith('.')) return [fieldError.invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

/** A printer column path must also be one the table printer can evaluate. */
function columnPathErrors(s: string, path: string): FieldError[] {
  const simple = simpleJsonPathErrors(s, path);
  if (simple.length > 0) return simple;
  try {
    parseJsonPath(`{${s}}`);
    return [];
  } catch (e) {
    return [fieldError.invalid(path, s, e instanceof JsonPathError ? `is not a valid JSONPath: ${e.message}` : String(e))];
  }
}

function deprecationWarningErrors(r: FieldReader, v: Rec, path: string): FieldError[] {
  if (v.deprecationWarning === undefined || v.deprecationWarning === null) return [];
  const warning = r.str(v, 'deprecationWarning', path);
  if (v.deprecated !== true) return [fieldError.invalid(path, warning, 'can only be set for deprecated versions')];
  const errs: FieldError[] = [];
  if (warning.length > MAX_DEPRECATION_WARNING) errs.push(fieldError.invalid(path, warning, `must be <= ${MAX_DEPRECATION_WARNING} characters long`));
  if (warning === '') errs.push(fieldError.invalid(path, warning, 'must not be an empty string'));
  const bad = [...warning].findIndex((ch) => /[\p{C}]/u.test(ch));
  if (bad >= 0) errs.push(fieldError.invalid(path, warning, `must only contain printable UTF-8 characters; non-printable character found at index ${bad}`));
  return errs;
}

function scaleErrors(r: FieldReader, scale: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const under = (key: string, prefixes: string[], what: string, optional: boolean) => {
    const at = `${path}.${key}`;
    const value = r.str(scale, key, at);
    if (value === '') {
      if (!optional) errs.push(required(at));
      return;
    }
    const simple = simpleJsonPathErrors(value, at);
    if (simple.length > 0) errs.push(...simple);
    else if (!prefixes.some((p) => value.startsWith(p))) errs.push(fieldError.invalid(at, value, `should be a json path under ${what}`));
  };
  under('specReplicasPath', ['.spec.'], '.spec', false);
  under('statusReplicasPath', ['.status.'], '.status', false);
  under('labelSelectorPath', ['.spec.', '.status.'], 'either .spec or .status', true);
  return errs;
}

function printerColumnErrors(r: FieldReader, col: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (r.str(col, 'name', `${path}.name`) === '') errs.push(required(`${path}.name`));
  const type = r.str(col, 'type', `${path}.type`);
  const types = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (type === '') errs.push(required(`${path}.type`, types));
  else if (!PRINTER_COLUMN_TYPES.includes(type)) errs.push(fieldError.invalid(`${path}.type`, type, types));
  const format = r.str(col, 'format', `${path}.format`);
  if (format !== '' && !PRINTER_COLUMN_FORMATS.includes(format)) {
    errs.push(fieldError.invalid(`${path}.format`, format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  }
  const jsonPath = r.str(col, 'jsonPath', `${path}.jsonPath`);
  if (jsonPath === '') errs.push(required(`${path}.jsonPath`));
  else errs.push(...columnPathErrors(jsonPath, `${path}.jsonPath`));
  r.int(col, 'priority', `${path}.priority`);
  r.str(col, 'description', `${path}.description`);
  return errs;
}

/** The schema node a selectable field path (`.spec.color`, `.spec['a.b']`) leads to, or why there is none. */
function schemaAt(root: Rec, jsonPath: string): { node?: Rec; steps: string[]; problem?: string } {
  const steps: string[] = [];
  const token = /\.([^.[\]]+)|\['([^']*)'\]/y;
  let node: Rec | undefined = root;
  let i = 0;
  while (i < jsonPath.length) {
    token.lastIndex = i;
    const m = token.exec(jsonPath);
    if (!m) return { steps, problem: `unexpected ${JSON.stringify(jsonPath.slice(i))}` };
    const name = (m[1] ?? m[2]) as string;
    steps.push(name);
    i = token.lastIndex;
    const props: Rec | undefined = node && isRec(node.properties) ? node.properties : undefined;
    const next: unknown = props?.[name] ?? (node && isRec(node.additionalProperties) ? node.additionalProperties : undefined);
    if (!isRec(next)) return { steps, problem: `does not refer to a valid field` };
    node = next;
  }
  if (steps.length === 0) return { steps, problem: 'must name a field' };
  return { node, steps };
}

function selectableFieldErrors(r: FieldReader, v: Rec, schema: Rec | undefined, path: string): FieldError[] {
  const fields = r.list(v, 'selectableFields', path);
  if (fields.length === 0) return [];
  if (!schema) return [fieldError.invalid(path, '', 'may only be set when `version.schema.openAPIV3Schema` is not included')];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const at = `${path}[${i}].jsonPath`;
    const jsonPath = isRec(f) ? r.str(f, 'jsonPath', at) : '';
    if (!isRec(f)) errs.push(fieldError.typeInvalid(`${path}[${i}]`, f, 'must be of type object'));
    if (jsonPath === '') {
      if (isRec(f)) errs.push(required(at));
      return;
    }
    const found = schemaAt(schema, jsonPath);
    if (found.problem) {
      errs.push(fieldError.invalid(at, jsonPath, `is an invalid path: ${found.problem}`));
      return;
    }
    if (found.steps[0] === 'metadata') errs.push(fieldError.invalid(at, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(String(found.node?.type))) {
      errs.push(fieldError.invalid(at, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    const key = found.steps.join('\u0000');
    if (seen.has(key)) errs.push(fieldError.duplicate(at, jsonPath));
    seen.add(key);
  });
  if (seen.size > MAX_SELECTABLE_FIELDS) errs.push(tooMany(path, seen.size, MAX_SELECTABLE_FIELDS));
  return errs;
}

/** With the status subresource on, the root schema is an object and may use only some keywords. */
function rootWithStatusErrors(schema: Rec, path: string): FieldError[] {
  const isZero = (v: unknown) =>
    v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (isRec(v) && Object.keys(v).length === 0);
  for (const [key, value] of Object.entries(schema)) {
    if (isZero(value)) continue;
    if (key === 'type') {
      if (value !== 'object') return [fieldError.invalid(`${path}.type`, value, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
      continue;
    }
    if (!ROOT_KEYS_WITH_STATUS.has(key)) {
      return [fieldError.invalid(path, '', `only [${[...ROOT_KEYS_WITH_STATUS.values()].join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`)];
    }
  }
  return [];
}

/** Every rule of `spec.versions[i]` (at `path`) on its own. */
export function validateVersion(r: FieldReader, v: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = r.str(v, 'name', `${path}.name`);
  const nameErrs = isDNS1035Label(name);
  if (nameErrs.length > 0) errs.push(fieldError.invalid(`${path}.name`, name, nameErrs.join(',')));
  for (const key of ['served', 'storage', 'deprecated']) {
    if (v[key] !== undefined && v[key] !== null && typeof v[key] !== 'boolean') errs.push(fieldError.typeInvalid(`${path}.${key}`, v[key], 'must be of type boolean'));
  }
  errs.push(...deprecationWarningErrors(r, v, `${path}.deprecationWarning`));

  const schemaPath = `${path}.schema.openAPIV3Schema`;
  const schema = r.obj(r.obj(v, 'schema', `${path}.schema`), 'openAPIV3Schema', schemaPath);
  const subresources = r.obj(v, 'subresources', `${path}.subresources`);
  const statusOn = subresources !== undefined && subresources.status !== undefined && subresources.status !== null;
  if (statusOn) r.obj(subresources, 'status', `${path}.subresources.status`);
  if (!schema) {
    errs.push(required(schemaPath));
  } else {
    if (statusOn) errs.push(...rootWithStatusErrors(schema, schemaPath));
    errs.push(...compileCustomSchema(schema, schemaPath).errors);
  }
  const scale = r.obj(subresources, 'scale', `${path}.subresources.scale`);
  if (scale) errs.push(...scaleErrors(r, scale, `${path}.subresources.scale`));
  r.list(v, 'additionalPrinterColumns', `${path}.additionalPrinterColumns`).forEach((col, i) => {
    const at = `${path}.additionalPrinterColumns[${i}]`;
    if (isRec(col)) errs.push(...printerColumnErrors(r, col, at));
    else errs.push(fieldError.typeInvalid(at, col, 'must be of type object'));
  });
  errs.push(...selectableFieldErrors(r, v, schema, `${path}.selectableFields`));
  return errs;
}
