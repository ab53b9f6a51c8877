/**
 * Child process for the crash test: 64 concurrent writers create keys in a loop against the SQLite file in
 * argv[2] and print `ack <key>` for every create the backend has acknowledged. The parent kills it with SIGKILL.
 */
import { SqliteBackend } from './sqlite-backend.js';

const backend = new SqliteBackend({ path: process.argv[2] as string, history: { compactIntervalMs: 0 } });
const value = new TextEncoder().encode('x'.repeat(256));
let out = '';
const flushOut = () => {
  if (out) process.stdout.write(out);
  out = '';
};
setInterval(flushOut, 5);

async function writer(w: number): Promise<void> {
  for (let i = 0; ; i++) {
    const key = `/crash/w${w}/${i}`;
    await backend.create(key, value);
    out += `ack ${key}\n`;
  }
}
for (let w = 0; w < 64; w++) void writer(w);
