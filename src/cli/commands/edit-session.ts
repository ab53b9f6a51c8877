/**
 * The file an `edit` session shows: the objects (one, or a `List` of several) in YAML or JSON under a
 * comment header, which carries the reasons of the last failed save when the file is opened again; and the
 * editor run on it (`<MAKER>_EDITOR`, then `EDITOR`, then `vi`), through the shell as users write it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { CLI_EDITOR_ENV } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';

export type EditFormat = 'yaml' | 'json';

const HEADER = [
  'Edit the object(s) below and save to send the changes; close without saving to leave them as they are.',
  "Lines starting with '#' are ignored, and an empty file cancels the edit.",
  'If the changes cannot be saved, this file opens again with the reason at the top.',
];

/** Pure: the document shown for `objects`. */
export function renderDocument(objects: KubeObject[], format: EditFormat): string {
  const doc = objects.length === 1 ? objects[0] : { apiVersion: 'v1', kind: 'List', metadata: {}, items: objects };
  return format === 'json' ? `${JSON.stringify(doc, null, 4)}\n` : toYaml(doc, { lineWidth: 0 });
}

/** Pure: the header comment, with the problems of the previous attempt. */
export function renderHeader(problems: string[]): string {
  const lines = [...HEADER, ...(problems.length > 0 ? ['', ...problems] : [])];
  return `${lines.map((l) => (l === '' ? '#' : `# ${l}`)).join('\n')}\n#\n`;
}

/** Pure: the file's text without comment lines (the header and any the user added). */
export const stripComments = (text: string): string =>
  text
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('#'))
    .join('\n');

/** Pure: the edited objects of a saved file (a `List` gives its items). */
export function parseEdited(text: string): KubeObject[] {
  const doc: unknown = parseYaml(text);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('the file does not hold an object');
  const d = doc as KubeObject & { items?: unknown };
  if (d.kind === 'List' && Array.isArray(d.items)) return d.items as KubeObject[];
  return [d];
}

/** Pure: the editor command, as the reference looks for it. */
export function editorCommand(env: NodeJS.ProcessEnv): string {
  return env[CLI_EDITOR_ENV] || env.EDITOR || 'vi';
}

export class EditFile {
  private readonly dir: string;
  readonly path: string;

  constructor(format: EditFormat) {
    this.dir = mkdtempSync(join(tmpdir(), 'orchctl-edit-'));
    this.path = join(this.dir, `edit.${format}`);
  }

  /** Writes the text, runs the editor on it (waiting without blocking), and returns what was saved. */
  async edit(text: string, env: NodeJS.ProcessEnv): Promise<string> {
    writeFileSync(this.path, text, { mode: 0o600 });
    const editor = editorCommand(env);
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(`${editor} '${this.path.replaceAll("'", `'\\''`)}'`, { shell: true, stdio: 'inherit', env });
      child.once('error', reject);
      child.once('exit', (c) => resolve(c));
    });
    if (code !== 0) throw new Error(`the editor "${editor}" exited with code ${String(code)}; nothing was saved`);
    return readFileSync(this.path, 'utf8');
  }

  /** Keeps the user's last text in a file of its own (for a failed session); returns its path. */
  keep(text: string): string {
    const kept = mkdtempSync(join(tmpdir(), 'orchctl-edit-kept-'));
    const path = join(kept, 'edit.txt');
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
