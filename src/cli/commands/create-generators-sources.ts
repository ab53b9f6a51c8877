/**
 * The data sources of `create configmap` and `create secret generic|docker-registry`: `--from-literal`,
 * `--from-file` (a file or a folder) and `--from-env-file`, read into key/value entries in the order and
 * with the checks of the reference client.
 */
import { readFileSync, readdirSync, statSync, type Stats } from 'node:fs';
import { basename, join } from 'node:path';

/** One key of the generated object and its bytes. */
export interface DataEntry {
  key: string;
  value: Buffer;
}

/** Why `key` cannot name a ConfigMap or Secret entry, or undefined when it can. */
export function dataKeyProblems(key: string): string[] {
  const out: string[] = [];
  if (key.length > 253) out.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) out.push(`may contain only letters, digits, '-', '_' and '.' (e.g. 'key.name', 'KEY_NAME' or 'key-name')`);
  if (key === '.') out.push(`must not be '.'`);
  else if (key === '..') out.push(`must not be '..'`);
  else if (key.startsWith('..')) out.push(`must not start with '..'`);
  return out;
}

/** `key=value`; the value is kept as typed, quotes included (as the reference client now does). */
export function parseLiteralSource(source: string): { key: string; value: string } {
  const eq = source.indexOf('=');
  if (eq <= 0) throw new Error(`--from-literal: "${source}" is not key=value`);
  return { key: source.slice(0, eq), value: source.slice(eq + 1) };
}

/** `[key=]path`: the key defaults to the file's base name. */
export function parseFileSource(source: string): { key?: string; path: string } {
  const parts = source.split('=');
  if (parts.length === 1) return { path: source };
  if (parts.length > 2) throw new Error(`--from-file: "${source}": neither the key nor the path may contain '='`);
  const [key, path] = parts as [string, string];
  if (key === '') throw new Error(`--from-file: the key for file path ${path} is missing`);
  if (path === '') throw new Error(`--from-file: the file path for key ${key} is missing`);
  return { key, path };
}

function statOrExplain(path: string): Stats {
  try {
    return statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(`error reading ${path}: ${code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
}

/** Every `--from-file` source: a file gives one entry, a folder one per regular file directly in it. */
export function readFileSources(sources: readonly string[]): DataEntry[] {
  const out: DataEntry[] = [];
  for (const source of sources) {
    const { key, path } = parseFileSource(source);
    const info = statOrExplain(path);
    if (!info.isDirectory()) {
      out.push({ key: key ?? basename(path), value: readFileSync(path) });
      continue;
    }
    if (key !== undefined) throw new Error(`--from-file: ${source}: a folder takes no key name`);
    const files = readdirSync(path, { withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => d.name)
      .sort();
    for (const name of files) out.push({ key: name, value: readFileSync(join(path, name)) });
  }
  return out;
}

/** Environment variable names as the reference accepts them in env files. */
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/**
 * One env file: `KEY=VALUE` lines; blank lines and `#` comments skipped; leading white space ignored; a
 * line with no `=` takes the value of that variable from `env` (empty when unset). Pure given the text.
 */
export function parseEnvFile(text: string, path: string, env: NodeJS.ProcessEnv): DataEntry[] {
  const out: DataEntry[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.replace(/^\s+/, '');
    if (line === '' || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq);
    if (!ENV_NAME.test(key)) {
      throw new Error(`${path}, line ${i + 1}: "${key}" is not a valid key name: use letters, digits, '_', '-' or '.', not starting with a digit`);
    }
    out.push({ key, value: Buffer.from(eq < 0 ? (env[key] ?? '') : line.slice(eq + 1), 'utf8') });
  });
  return out;
}

export function readEnvFileSources(sources: readonly string[], env: NodeJS.ProcessEnv): DataEntry[] {
  const out: DataEntry[] = [];
  for (const path of sources) {
    if (statOrExplain(path).isDirectory()) throw new Error(`--from-env-file: ${path} is a folder, not a file`);
    const bytes = readFileSync(path);
    const text = bytes.toString('utf8');
    if (Buffer.compare(Buffer.from(text, 'utf8'), bytes) !== 0) throw new Error(`--from-env-file: ${path} is not valid UTF-8`);
    out.push(...parseEnvFile(text, path, env));
  }
  return out;
}

export interface SourceFlags {
  fromLiteral?: string[];
  fromFile?: string[];
  fromEnvFile?: string[];
}

/** All entries of the three kinds of source, files first, then literals, then env files (the reference's order). */
export function readSources(f: SourceFlags, env: NodeJS.ProcessEnv): DataEntry[] {
  const literal = f.fromLiteral ?? [];
  const files = f.fromFile ?? [];
  const envFiles = f.fromEnvFile ?? [];
  if (envFiles.length > 0 && (files.length > 0 || literal.length > 0)) throw new Error('--from-env-file cannot be combined with --from-file or --from-literal');
  return [
    ...readFileSources(files),
    ...literal.map((s) => {
      const { key, value } = parseLiteralSource(s);
      return { key, value: Buffer.from(value, 'utf8') };
    }),
    ...readEnvFileSources(envFiles, env),
  ];
}

/** True when the bytes are valid UTF-8 (a ConfigMap keeps them in `data`, else in `binaryData`). */
export function isUtf8(bytes: Buffer): boolean {
  return Buffer.compare(Buffer.from(bytes.toString('utf8'), 'utf8'), bytes) === 0;
}
