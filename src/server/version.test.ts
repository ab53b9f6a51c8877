import assert from 'node:assert/strict';
import { PACKAGE_NAME } from '../api/naming.js';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { findPackageRoot, gitCommitOf, versionInfoAt } from './version.js';

const dirs: string[] = [];
function dir(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'orch-version-'));
  dirs.push(d);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(d, path, '..'), { recursive: true });
    writeFileSync(join(d, path), text);
  }
  return d;
}

const SHA = '0123456789abcdef0123456789abcdef01234567';
const OTHER = 'fedcba9876543210fedcba9876543210fedcba98';

describe('/version build facts (reference behaviour)', () => {
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  const commits: { title: string; files: Record<string, string>; want: string }[] = [
    { title: 'a branch with a loose ref', files: { '.git/HEAD': 'ref: refs/heads/main\n', '.git/refs/heads/main': `${SHA}\n` }, want: SHA },
    { title: 'a branch only in packed-refs', files: { '.git/HEAD': 'ref: refs/heads/main\n', '.git/packed-refs': `# pack-refs with: peeled\n${OTHER} refs/heads/other\n${SHA} refs/heads/main\n` }, want: SHA },
    { title: 'a detached HEAD', files: { '.git/HEAD': `${SHA}\n` }, want: SHA },
    { title: 'not a checkout', files: {}, want: '' },
    { title: 'a branch without any commit yet', files: { '.git/HEAD': 'ref: refs/heads/main\n' }, want: '' },
    { title: 'a HEAD that is not a ref or a commit', files: { '.git/HEAD': 'garbage\n' }, want: '' },
    { title: 'a ref escaping the git directory', files: { '.git/HEAD': 'ref: refs/../../x\n', x: `${SHA}\n` }, want: '' },
  ];
  for (const c of commits) it(`gitCommit for ${c.title}: ${c.want || 'empty'}`, () => assert.equal(gitCommitOf(dir(c.files)), c.want));

  it('gitVersion is the API level with the package version as build metadata, buildDate the package file time, major/minor the API level 1.31', () => {
    const root = dir({ 'package.json': JSON.stringify({ name: 'orch', version: '2.3.4' }) });
    utimesSync(join(root, 'package.json'), new Date('2024-05-06T07:08:09.500Z'), new Date('2024-05-06T07:08:09.500Z'));
    const v = versionInfoAt(root);
    assert.deepEqual(
      { major: v.major, minor: v.minor, gitVersion: v.gitVersion, gitCommit: v.gitCommit, gitTreeState: v.gitTreeState, buildDate: v.buildDate, goVersion: v.goVersion },
      { major: '1', minor: '31', gitVersion: `v1.31.0+${PACKAGE_NAME}.2.3.4`, gitCommit: '', gitTreeState: '', buildDate: '2024-05-06T07:08:09Z', goVersion: '' },
    );
    assert.equal(v.compiler, `node ${process.version}`);
    assert.equal(v.platform, `${process.platform}/${process.arch}`);
  });

  it('without a package root only runtime facts are filled, nothing is invented', () => {
    const v = versionInfoAt(undefined);
    assert.deepEqual([v.gitVersion, v.gitCommit, v.buildDate, v.gitTreeState], ['', '', '', '']);
  });

  it('the package root is found upwards from a bundle directory, skipping other packages', () => {
    const root = dir({ 'package.json': JSON.stringify({ name: 'orch', version: '1.0.0' }), 'node_modules/package.json': JSON.stringify({ name: 'other' }), 'node_modules/.cache/orch/x': '' });
    assert.equal(findPackageRoot(join(root, 'node_modules', '.cache', 'orch')), root);
  });
});
