import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { microTime, newAuditID, peerIP, sourceIPs } from './event.js';
import { inOrder } from './record.js';

describe('audit event pieces, fast forms (spec 2.11)', () => {
  it('spec 2.11: timestamps have exactly six fractional digits and agree with Date for whole milliseconds', () => {
    const base = Date.parse('2024-02-29T23:59:59.000Z');
    const rows: [number, string][] = [
      [base, '2024-02-29T23:59:59.000000Z'],
      [base + 0.0015, '2024-02-29T23:59:59.000001Z'],
      [base + 7.0405, '2024-02-29T23:59:59.007040Z'],
      [base + 999.999, '2024-02-29T23:59:59.999999Z'],
      [base + 1000, '2024-03-01T00:00:00.000000Z'],
    ];
    for (const [ms, want] of rows) assert.equal(microTime(ms), want);
    for (let ms = base - 5000; ms < base + 5000; ms += 137) assert.equal(microTime(ms), new Date(ms).toISOString().replace('Z', '000Z'));
  });

  it('reference behaviour: audit IDs are random version 4 UUIDs, never repeated', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const id = newAuditID();
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(id);
    }
    assert.equal(seen.size, 5000);
  });

  it('reference behaviour: source IPs from a connection\'s cached peer address are those from its raw address', () => {
    const remotes = ['127.0.0.1', '::ffff:10.1.2.3', '::1', 'FE80::1', 'not-an-ip', undefined];
    const headers: [string | undefined, string | undefined][] = [
      [undefined, undefined],
      ['1.1.1.1, junk, 2.2.2.2', undefined],
      [undefined, '4.4.4.4'],
      ['127.0.0.1', '127.0.0.1'],
    ];
    for (const remote of remotes) {
      const socket = { remoteAddress: remote };
      for (const [xff, real] of headers) {
        for (let twice = 0; twice < 2; twice++) assert.deepEqual(sourceIPs(xff, real, peerIP(socket), true), sourceIPs(xff, real, remote), `${remote} ${xff} ${real}`);
      }
    }
    assert.equal(peerIP(undefined), undefined);
  });

  it('spec 2.11: annotation keys are found in order exactly when sort() would leave them as they are', () => {
    const rows: string[][] = [[], ['a'], ['a', 'b'], ['b', 'a'], ['authorization.x/decision', 'authorization.x/reason'], ['x/b', 'x/a', 'x/c'], ['A', 'a'], ['a', 'A'], ['a/b', 'a.b']];
    for (const keys of rows) assert.equal(inOrder(keys), JSON.stringify([...keys].sort()) === JSON.stringify(keys), keys.join(' '));
  });
});
