/**
 * The `--admission-control-config-file` document (spec 2.12): an `AdmissionConfiguration` whose `plugins[]`
 * give each plugin its configuration, inline (`configuration`) or in a file of its own (`path`, relative to
 * the configuration file's directory). YAML or JSON. Every problem is reported at start-up with the field
 * path that holds it.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ADMISSION_CONFIG_GROUP, ADMISSION_CONFIG_LEGACY_GROUP } from '../api/naming.js';
import { isObject } from '../api/types.js';
import { readableVersions, toCurrentVersion, type VersionTable } from './versions.js';

export const ADMISSION_CONFIGURATION_KIND = 'AdmissionConfiguration';

/** The reference reads v1, its v1alpha1 and the older group's v1alpha1; all three have the same fields. */
export const ADMISSION_VERSION_TABLE: VersionTable = {
  current: `${ADMISSION_CONFIG_GROUP}/v1`,
  older: { [`${ADMISSION_CONFIG_GROUP}/v1alpha1`]: null, [`${ADMISSION_CONFIG_LEGACY_GROUP}/v1alpha1`]: null },
};
export const ADMISSION_CONFIG_VERSIONS: readonly string[] = readableVersions(ADMISSION_VERSION_TABLE);

const ENTRY_FIELDS = new Set(['name', 'path', 'configuration']);
const TOP_FIELDS = new Set(['apiVersion', 'kind', 'plugins']);

/** Thrown for a configuration file that cannot be used; the message names the file and the field. */
export class AdmissionConfigError extends Error {}

/** Reads and checks the file: plugin name → its configuration (a parsed JSON value). */
export function loadAdmissionConfiguration(
  file: string,
  knownPlugin: (name: string) => boolean,
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): Map<string, unknown> {
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    throw new AdmissionConfigError(`--admission-control-config-file: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return parseAdmissionConfiguration(text, dirname(resolve(file)), knownPlugin, read);
  } catch (e) {
    if (e instanceof AdmissionConfigError) throw new AdmissionConfigError(`--admission-control-config-file ${file}: ${e.message}`);
    throw e;
  }
}

/** Parses YAML or JSON text (YAML 1.1, so JSON too); duplicate keys are an error, as in the other documents. */
export function parseDocument(text: string, what: string): unknown {
  try {
    return parseYaml(text, { version: '1.1', uniqueKeys: true, maxAliasCount: 100 });
  } catch (e) {
    throw new AdmissionConfigError(`${what}: not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** The document's plugins: name → configuration; `dir` resolves relative `path`s. */
export function parseAdmissionConfiguration(
  text: string,
  dir: string,
  knownPlugin: (name: string) => boolean,
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): Map<string, unknown> {
  const doc = toCurrentVersion(parseDocument(text, 'the document'), ADMISSION_VERSION_TABLE);
  if (!isObject(doc)) throw new AdmissionConfigError('the document must be an object (an AdmissionConfiguration)');
  for (const k of Object.keys(doc)) if (!TOP_FIELDS.has(k)) throw new AdmissionConfigError(`${k}: unknown field`);
  if (doc.kind !== ADMISSION_CONFIGURATION_KIND) {
    throw new AdmissionConfigError(`kind: Unsupported value ${JSON.stringify(doc.kind ?? '')}: supported values: "${ADMISSION_CONFIGURATION_KIND}"`);
  }
  if (typeof doc.apiVersion !== 'string' || !ADMISSION_CONFIG_VERSIONS.includes(doc.apiVersion)) {
    throw new AdmissionConfigError(`apiVersion: Unsupported value ${JSON.stringify(doc.apiVersion ?? '')}: supported values: ${ADMISSION_CONFIG_VERSIONS.map((v) => `"${v}"`).join(', ')}`);
  }
  const plugins = doc.plugins ?? [];
  if (!Array.isArray(plugins)) throw new AdmissionConfigError('plugins: must be a list');
  const out = new Map<string, unknown>();
  plugins.forEach((entry: unknown, i: number) => {
    const at = `plugins[${i}]`;
    if (!isObject(entry)) throw new AdmissionConfigError(`${at}: must be an object with name and path or configuration`);
    for (const k of Object.keys(entry)) if (!ENTRY_FIELDS.has(k)) throw new AdmissionConfigError(`${at}.${k}: unknown field`);
    const name = entry.name;
    if (typeof name !== 'string' || name === '') throw new AdmissionConfigError(`${at}.name: Required value`);
    if (!knownPlugin(name)) throw new AdmissionConfigError(`${at}.name: Unsupported value ${JSON.stringify(name)}: not an admission plugin this server knows`);
    if (out.has(name)) throw new AdmissionConfigError(`${at}.name: Duplicate value ${JSON.stringify(name)}`);
    const hasPath = entry.path !== undefined && entry.path !== null && entry.path !== '';
    const hasInline = entry.configuration !== undefined && entry.configuration !== null;
    if (hasPath && hasInline) throw new AdmissionConfigError(`${at}: path and configuration are mutually exclusive; give one`);
    if (hasPath) {
      if (typeof entry.path !== 'string') throw new AdmissionConfigError(`${at}.path: must be a string`);
      out.set(name, readPluginFile(resolve(dir, entry.path), `${at}.path`, read));
    } else if (hasInline) {
      if (!isObject(entry.configuration)) throw new AdmissionConfigError(`${at}.configuration: must be an object`);
      out.set(name, entry.configuration);
    } else {
      out.set(name, undefined);
    }
  });
  return out;
}

function readPluginFile(file: string, at: string, read: (path: string) => string): unknown {
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    throw new AdmissionConfigError(`${at}: cannot read ${file}: ${(e as Error).message}`);
  }
  const value = parseDocument(text, `${at} (${file})`);
  if (!isObject(value)) throw new AdmissionConfigError(`${at}: ${file} must hold an object`);
  return value;
}
