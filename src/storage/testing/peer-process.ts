/**
 * A peer in another process: opens the backend described by argv[2] (a BackendSpec as JSON) and serves
 * JSON-line commands on stdin, answering on stdout. Used by the cross-process contract test.
 */
import { createInterface } from 'node:readline';
import { openBackend, type BackendSpec } from '../open.js';
import { take } from './contract.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as BackendSpec;
const backend = await openBackend(spec, { compactIntervalMs: 0 });
const reply = (msg: object) => process.stdout.write(`${JSON.stringify(msg)}\n`);

interface Command {
  id: number;
  op: 'create' | 'collect' | 'close';
  key?: string;
  value?: string;
  prefix?: string;
  from?: number;
  count?: number;
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const cmd = JSON.parse(line) as Command;
  void (async () => {
    try {
      if (cmd.op === 'create') {
        const kv = await backend.create(cmd.key!, new TextEncoder().encode(cmd.value!));
        reply({ id: cmd.id, result: kv.modRevision });
      } else if (cmd.op === 'collect') {
        const ac = new AbortController();
        const w = backend.watch(cmd.prefix!, cmd.from!, ac.signal);
        reply({ id: cmd.id, started: true });
        const events = await take(w, cmd.count!, 10_000);
        ac.abort();
        reply({
          id: cmd.id,
          result: events.map((e) => ({ type: e.type, key: e.type === 'PUT' ? e.kv.key : e.key, revision: e.revision })),
        });
      } else {
        await backend.close();
        reply({ id: cmd.id, result: null });
        process.exit(0);
      }
    } catch (e) {
      reply({ id: cmd.id, error: String(e) });
    }
  })();
});
reply({ id: 0, ready: true });
