import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FILE_RECHECK_MS, RefreshingFile, staticCredentials } from './credentials.js';

describe('credentials from the kubeconfig and its files (reference behaviour)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-kcred-'));

  it('reference behaviour: a token file is re-read when it changes, at most once a minute', () => {
    let now = 1_000_000;
    const path = join(dir, 'token');
    writeFileSync(path, 'one\n');
    const src = staticCredentials({ token: { file: new RefreshingFile(path, 'user "u": tokenFile', FILE_RECHECK_MS, () => now) } });
    assert.deepEqual(src.get(), { token: 'one' });
    writeFileSync(path, 'two-longer\n');
    now += FILE_RECHECK_MS - 1;
    assert.deepEqual(src.get(), { token: 'one' }, 'not looked at again within the minute');
    now += 1;
    assert.deepEqual(src.get(), { token: 'two-longer' });
  });

  it('reference behaviour: after a 401 (invalidate) the files are looked at at once', () => {
    const now = 5;
    const cert = join(dir, 'c.crt');
    const key = join(dir, 'c.key');
    writeFileSync(cert, 'CERT-1');
    writeFileSync(key, 'KEY-1');
    const src = staticCredentials({
      cert: { file: new RefreshingFile(cert, 'c', FILE_RECHECK_MS, () => now) },
      key: { file: new RefreshingFile(key, 'k', FILE_RECHECK_MS, () => now) },
    });
    assert.deepEqual(src.get(), { certPem: 'CERT-1', keyPem: 'KEY-1' });
    writeFileSync(cert, 'CERT-22');
    writeFileSync(key, 'KEY-22');
    src.invalidate!();
    assert.deepEqual(src.get(), { certPem: 'CERT-22', keyPem: 'KEY-22' });
  });

  it('reference behaviour: inline credentials are one fixed object', () => {
    const src = staticCredentials({ token: { inline: 't' }, cert: { inline: 'C' }, key: { inline: 'K' } });
    assert.equal(src.get(), src.get());
    assert.deepEqual(src.get(), { token: 't', certPem: 'C', keyPem: 'K' });
    assert.equal(src.invalidate, undefined);
  });

  it('reference behaviour: a missing credential file is an error naming it', () => {
    assert.throws(() => new RefreshingFile(join(dir, 'none'), 'user "u": client-key'), /user "u": client-key: cannot read .*none/);
  });
});
