/**
 * The message descriptors of every built-in kind, generated from the reference `.proto` files
 * (generated/protobuf.ts), and which one each apiVersion + kind is encoded with (from the definitions'
 * `x-kubernetes-group-version-kind`). Pointer fields keep their zero values (pointer-fields.ts).
 */
import { DEFINITIONS, MESSAGES } from '../../generated/index.js';
import { POINTER_FIELDS } from './pointer-fields.js';
import type { DescriptorSet, FieldDescriptor, MessageDescriptor } from './wire.js';

/** Messages the reference marshals to JSON by hand as one of their members (wire.ts `union`). */
const UNIONS: ReadonlySet<string> = new Set(
  ['v1', 'v1beta1'].flatMap((v) =>
    ['JSONSchemaPropsOrArray', 'JSONSchemaPropsOrBool', 'JSONSchemaPropsOrStringArray'].map((m) => `apiextensions-apiserver.pkg.apis.apiextensions.${v}.${m}`),
  ),
);

function build(): DescriptorSet {
  const set: DescriptorSet = {};
  for (const [name, fields] of Object.entries(MESSAGES)) {
    const m: MessageDescriptor = {};
    for (const [json, f] of Object.entries(fields)) {
      const fd = { ...f } as FieldDescriptor;
      if (POINTER_FIELDS.has(`${name}.${json}`)) fd.keep = true;
      if (fd.type === 'message' && UNIONS.has(fd.message!)) fd.type = 'union';
      if (fd.mapValue?.type === 'message' && UNIONS.has(fd.mapValue.message!)) fd.mapValue = { ...fd.mapValue, type: 'union' };
      m[json] = fd;
    }
    set[name] = m;
  }
  return set;
}

export const DESCRIPTORS: DescriptorSet = build();

/** apiVersion -> kind -> message name, for every definition with a group/version/kind and a message. */
const KINDS = new Map<string, Map<string, string>>();
for (const [name, def] of Object.entries(DEFINITIONS)) {
  if (!Object.hasOwn(DESCRIPTORS, name)) continue;
  for (const gvk of def['x-kubernetes-group-version-kind'] ?? []) {
    const apiVersion = gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
    let byKind = KINDS.get(apiVersion);
    if (!byKind) KINDS.set(apiVersion, (byKind = new Map()));
    // Shared kinds (DeleteOptions, WatchEvent) name one meta message for every group version.
    if (!byKind.has(gvk.kind)) byKind.set(gvk.kind, name);
  }
}

/** The descriptor of a kind, or undefined when it has no protobuf form. */
export function descriptorFor(apiVersion: string, kind: string): string | undefined {
  return KINDS.get(apiVersion)?.get(kind);
}

/** Every apiVersion/kind pair with a protobuf form, for tests. */
export function protobufKinds(): { apiVersion: string; kind: string; descriptor: string }[] {
  return [...KINDS].flatMap(([apiVersion, kinds]) => [...kinds].map(([kind, descriptor]) => ({ apiVersion, kind, descriptor })));
}
