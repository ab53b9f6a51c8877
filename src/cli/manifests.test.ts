import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseManifests, readManifests } from './manifests.js';

describe('orchctl manifests', () => {
  it('reference behaviour: multi-document YAML, empty documents skipped, Lists expanded, JSON read', () => {
    const text = ['apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}', '', '# only a comment', 'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: s}}'].join('\n---\n');
    const out = parseManifests(text, 'f.yaml');
    assert.deepEqual(out.map((m) => `${m.source}:${m.object.kind}/${m.object.metadata.name}`), ['f.yaml (document 1):ConfigMap/a', 'f.yaml (document 4) item 0:Secret/s']);
    assert.equal(parseManifests('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n"}}', 'n.json')[0]!.object.kind, 'Namespace');
  });

  it('reference behaviour: documents without apiVersion or kind, non-objects and bad YAML name the file', () => {
    const cases: [string, RegExp][] = [
      ['kind: ConfigMap', /error validating f\.yaml: apiVersion not set/],
      ['metadata: {}', /apiVersion not set, kind not set/],
      ['- a', /must be an object, not a list/],
      ['a: [', /error parsing f\.yaml/],
      ['apiVersion: v1\nkind: X\nmetadata: 3', /metadata must be an object/],
    ];
    for (const [text, want] of cases) assert.throws(() => parseManifests(text, 'f.yaml'), want, text);
  });

  it('reference behaviour: folders give their manifest files in name order, sub-folders only with -R; - reads stdin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orchctl-manifests-'));
    try {
      const doc = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\n`;
      writeFileSync(join(dir, 'b.yaml'), doc('b'));
      writeFileSync(join(dir, 'a.json'), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }));
      writeFileSync(join(dir, 'notes.txt'), 'not a manifest');
      mkdirSync(join(dir, 'sub'));
      writeFileSync(join(dir, 'sub', 'c.yml'), doc('c'));
      const names = async (recursive: boolean) => (await readManifests([dir], recursive, async () => '')).map((m) => m.object.metadata.name);
      assert.deepEqual(await names(false), ['a', 'b']);
      assert.deepEqual(await names(true), ['a', 'b', 'c']);
      const fromStdin = await readManifests(['-'], false, async () => doc('in'));
      assert.deepEqual(fromStdin.map((m) => [m.source, m.object.metadata.name]), [['STDIN', 'in']]);
      await assert.rejects(readManifests([join(dir, 'missing.yaml')], false, async () => ''), /the path ".*missing\.yaml" does not exist/);
      await assert.rejects(readManifests(['https://example.com/x.yaml'], false, async () => ''), /URLs is not supported/);
      mkdirSync(join(dir, 'empty'));
      await assert.rejects(readManifests([join(dir, 'empty')], false, async () => ''), /no objects found/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
