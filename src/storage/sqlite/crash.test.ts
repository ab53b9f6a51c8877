import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { SqliteBackend } from './sqlite-backend.js';

it('every acknowledged write survives kill -9 of the writing process (durability)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-crash-'));
  const path = join(dir, 'state.db');
  const script = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acked: string[] = [];
  await new Promise<void>((resolve, reject) => {
    child.on('exit', () => resolve());
    child.on('error', reject);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('ack ')) return;
      acked.push(line.slice(4));
      // Kill in the middle of the stream of writes, with batches still in flight.
      if (acked.length === 3000) child.kill('SIGKILL');
    });
  });
  assert.ok(acked.length >= 3000, `only ${acked.length} writes acknowledged before the child exited`);
  const b = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });
  try {
    const stored = new Set((await b.list('/crash/')).items.map((kv) => kv.key));
    const missing = acked.filter((k) => !stored.has(k));
    assert.deepEqual(missing, [], `${missing.length} acknowledged writes lost`);
    assert.equal(await b.currentRevision(), stored.size, 'one revision per stored write, no gaps');
  } finally {
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
