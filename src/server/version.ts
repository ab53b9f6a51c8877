/**
 * What `/version` reports: facts about this build, read once at start-up, never invented. `major`/`minor`
 * stay the API level the server implements (1.31), since clients compare them; `gitVersion` is that level
 * as a semantic version with this package's own version as build metadata (`v1.31.0+orch.0.1.0`), so
 * clients that parse it for version skew see the API level and people see the build. Fields that cannot be known cheaply are empty, as the reference leaves them when
 * built outside a git tree.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_NAME } from '../api/naming.js';

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export const API_LEVEL = { major: '1', minor: '31' } as const;

/** The package root: the nearest directory upwards holding this package's package.json (src/ or a bundle). */
export function findPackageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === PACKAGE_NAME) return dir;
    } catch {
      // no package.json here, or not JSON: keep climbing
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The commit checked out in `root`, from `.git/HEAD` and the ref it names (a loose ref file or
 * `packed-refs`); empty when `root` is not a checkout or the ref cannot be found. No process is spawned.
 */
export function gitCommitOf(root: string): string {
  const gitDir = join(root, '.git');
  const read = (p: string) => {
    try {
      return readFileSync(join(gitDir, p), 'utf8');
    } catch {
      return undefined;
    }
  };
  const head = read('HEAD')?.trim();
  if (!head) return '';
  if (/^[0-9a-f]{40}$/.test(head)) return head; // detached HEAD
  const ref = /^ref: (refs\/[^\s]+)$/.exec(head)?.[1];
  if (!ref || ref.includes('..')) return '';
  const loose = read(ref)?.trim();
  if (loose && /^[0-9a-f]{40}$/.test(loose)) return loose;
  for (const line of (read('packed-refs') ?? '').split('\n')) {
    const [sha, name] = line.trim().split(' ');
    if (name === ref && sha && /^[0-9a-f]{40}$/.test(sha)) return sha;
  }
  return '';
}

/** RFC 3339 in UTC without fractions, as the reference prints build dates. */
function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Builds the answer for a package installed at `root` (undefined: not found; then only runtime facts). */
export function versionInfoAt(root: string | undefined): VersionInfo {
  let version = '';
  let buildDate = '';
  if (root) {
    const file = join(root, 'package.json');
    try {
      const v = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
      if (typeof v === 'string' && v !== '') version = `v${API_LEVEL.major}.${API_LEVEL.minor}.0+${PACKAGE_NAME}.${v.replace(/[^0-9A-Za-z.-]/g, '-')}`;
      buildDate = rfc3339(statSync(file).mtimeMs); // when the package files were written (installed or built)
    } catch {
      // unreadable: the fields stay empty rather than guessed
    }
  }
  return {
    ...API_LEVEL,
    gitVersion: version,
    gitCommit: root ? gitCommitOf(root) : '',
    gitTreeState: '', // knowing it means hashing the work tree against the index: not done at start-up
    buildDate,
    goVersion: '',
    compiler: `node ${process.version}`,
    platform: `${process.platform}/${process.arch}`,
  };
}

let cached: VersionInfo | undefined;

/** This process's version facts, read on first use (at start-up) and kept. */
export function serverVersion(): VersionInfo {
  return (cached ??= versionInfoAt(findPackageRoot(dirname(fileURLToPath(import.meta.url)))));
}
