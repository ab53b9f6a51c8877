/**
 * `orchctl get --sort-by`, run as the real `bin/orchctl.js` against a started server and compared with what
 * the reference client (kubectl on PATH) prints for the same objects on the same server.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startServer, type TestServer } from '../src/index.js';
import { kubectl } from './helpers/kubectl.js';
import { orchctlProcess } from './helpers/orchctl.js';

/** Ages differ by the second between two runs: blank the AGE column. */
const noAges = (text: string): string => text.replace(/\b\d+(s|m|h|d)(\d+(s|m|h))?\b/g, 'AGE').replace(/ +/g, ' ');

describe('orchctl get --sort-by', () => {
  let server: TestServer;
  let kc: string;
  const run = (args: string[]) => orchctlProcess(kc, args);
  /** kubectl's exit code and output, whatever the code. */
  const theirs = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('kubectl', ['--kubeconfig', kc, ...args], { timeout: 30_000 }, (e, stdout, stderr) => resolve({ code: e ? Number((e as { code?: number }).code ?? -1) : 0, stdout, stderr }));
    });

  before(async () => {
    server = await startServer({});
    kc = server.writeKubeconfig();
    const k = kubectl(kc);
    await k(['create', 'namespace', 'srt']);
    // Names that natural order and byte order put differently (c9, c10), labels that only parse as numbers.
    await k(['create', 'configmap', 'c10', '-n', 'srt', '--from-literal=a=1']);
    await k(['create', 'configmap', 'c9', '-n', 'srt', '--from-literal=a=1', '--from-literal=b=2']);
    await k(['create', 'configmap', 'b', '-n', 'srt']);
    await k(['create', 'configmap', 'a2', '-n', 'srt', '--from-literal=x=3']);
    await k(['label', 'configmap', 'c9', 'rank=10', 'size=100m', '-n', 'srt']);
    await k(['label', 'configmap', 'b', 'rank=9', 'size=1', '-n', 'srt']);
    await k(['label', 'configmap', 'a2', 'size=2Ki', '-n', 'srt']);
    await k(['create', 'secret', 'generic', 'zz', '--from-literal=k=v', '-n', 'srt']);
  });
  after(async () => {
    await server.close();
  });

  it('reference behaviour: tables sorted by a string, a number-like label (missing first), a quantity, a timestamp', async () => {
    for (const field of ['.metadata.name', '.metadata.labels.rank', '{.metadata.labels.size}', 'metadata.creationTimestamp', '.metadata.resourceVersion']) {
      const args = ['get', 'cm', '-n', 'srt', `--sort-by=${field}`];
      const ours = await run(args);
      const ref = await theirs(args);
      assert.equal(ours.code, 0, ours.stderr);
      assert.equal(ref.code, 0, ref.stderr);
      assert.equal(noAges(ours.stdout), noAges(ref.stdout), field);
    }
    // Spot check of the order itself: byte order for names, numbers by value for the label.
    const names = (await run(['get', 'cm', '-n', 'srt', '--sort-by=.metadata.name', '--no-headers'])).stdout.split('\n').map((l) => l.split(' ')[0]);
    assert.deepEqual(names.slice(0, 4), ['a2', 'b', 'c10', 'c9']);
  });

  it('reference behaviour: -o name, yaml and json sort every kind as one list', async () => {
    for (const args of [
      ['get', 'cm,secret', '-n', 'srt', '--sort-by=.metadata.name', '-o', 'name'],
      ['get', 'cm', '-n', 'srt', '--sort-by=.metadata.labels.rank', '-o', 'name'],
      ['get', 'cm', 'c9', 'b', '-n', 'srt', '--sort-by=.metadata.resourceVersion', '-o', 'name'],
      ['get', 'cm', '-n', 'srt', '--sort-by=.metadata.labels.size', '-o', 'jsonpath={range .items[*]}{.metadata.name}{" "}{end}'],
    ]) {
      const ours = await run(args);
      assert.equal(ours.code, 0, ours.stderr);
      assert.equal(ours.stdout, (await theirs(args)).stdout, args.join(' '));
    }
    const json = await run(['get', 'cm', '-n', 'srt', '--sort-by=.metadata.labels.rank', '-o', 'json']);
    const ref = await theirs(['get', 'cm', '-n', 'srt', '--sort-by=.metadata.labels.rank', '-o', 'json']);
    const order = (text: string) => (JSON.parse(text) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
    assert.deepEqual(order(json.stdout), order(ref.stdout));
  });

  it('reference behaviour: named objects keep their order in tables; a field no row has drops the table', async () => {
    for (const args of [
      ['get', 'cm', 'c9', 'b', 'c10', '-n', 'srt', '--sort-by=.kind'],
      ['get', 'cm', 'c9', '-n', 'srt', '--sort-by=.nope'],
      ['get', 'cm', '-n', 'srt', '--sort-by=.nope'],
    ]) {
      const ours = await run(args);
      const ref = await theirs(args);
      assert.equal(ours.code, ref.code, args.join(' '));
      assert.equal(noAges(ours.stdout), noAges(ref.stdout), args.join(' '));
      assert.equal(ours.stderr, ref.stderr, args.join(' '));
    }
  });

  it('reference behaviour: failures exit 1 as kubectl does, each message naming --sort-by', async () => {
    for (const args of [
      ['get', 'cm,secret', '-n', 'srt', '--sort-by=.metadata.name'], // several tables: none has the field
      ['get', 'cm', 'c9', 'b', '-n', 'srt', '--sort-by=.metadata.name'],
      ['get', 'cm', '-n', 'srt', '-o', 'name', '--sort-by=.nope'],
      ['get', 'cm', '-n', 'srt', '--sort-by=.data'], // maps cannot be ordered
      ['get', 'cm', '-n', 'srt', '-o', 'name', '--sort-by={.metadata.name'], // not a field path
    ]) {
      const ours = await run(args);
      const ref = await theirs(args);
      assert.equal(ref.code, 1, `kubectl ${args.join(' ')}`);
      assert.equal(ours.code, 1, args.join(' '));
      assert.equal(ours.stdout, '', args.join(' '));
      assert.match(ours.stderr, /^error: --sort-by: /, args.join(' '));
    }
  });

  it('reference behaviour: --watch warns that events are not sorted', async () => {
    const args = ['get', 'cm', '-n', 'srt', '-w', '--sort-by=.nope', '--request-timeout=1s'];
    const ours = await run(args);
    const ref = await theirs(args);
    assert.equal(ours.code, 1);
    assert.equal(ref.code, 1);
    const warning = 'warning: --watch requested, --sort-by will be ignored for watch events received\n';
    assert.ok(ref.stderr.startsWith(warning), ref.stderr);
    assert.ok(ours.stderr.startsWith(warning), ours.stderr);
    assert.match(ours.stderr, /error: --sort-by: no object has a field at \{\.nope\}/);
  });
});
