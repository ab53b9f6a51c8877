import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { StallGuard } from './stall-guard.js';

/** A response whose pending bytes the test sets; destroy() records the cut and closes it. */
class FakeRes extends EventEmitter {
  writableLength = 0;
  writableEnded = false;
  destroyed = false;
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

describe('StallGuard: clients that stop reading are cut off (issue 23, spec 8)', () => {
  // Each row: pending bytes at successive one-second samples, and whether the guard (3 s) cuts the response.
  const rows: { name: string; samples: number[]; drainAt?: number; cut: boolean }[] = [
    { name: 'nothing pending (a quiet watch) is never cut', samples: [0, 0, 0, 0, 0, 0], cut: false },
    { name: 'bytes stuck at one level for the whole period are cut', samples: [500, 500, 500, 500, 500], cut: true },
    { name: 'bytes going down at each sample (a slow reader) are not cut', samples: [900, 800, 700, 600, 500, 400], cut: false },
    { name: 'stuck, then a drain event counts as progress', samples: [500, 500, 500, 500, 500], drainAt: 2, cut: false },
    { name: 'growing bytes with nothing sent are cut', samples: [100, 200, 300, 400, 500], cut: true },
  ];
  for (const row of rows) {
    it(row.name, () => {
      let now = 0;
      const guard = new StallGuard(3000, () => now);
      const res = new FakeRes();
      res.on('close', () => guard.remove(res));
      guard.add(res);
      row.samples.forEach((pending, i) => {
        now = (i + 1) * 1000;
        res.writableLength = pending;
        if (row.drainAt === i) res.emit('drain');
        guard.sweep();
      });
      guard.close();
      assert.equal(res.destroyed, row.cut);
    });
  }

  it('a removed (closed) response is forgotten, and a stall timeout of 0 watches nothing', () => {
    let now = 0;
    const guard = new StallGuard(1000, () => now);
    const res = new FakeRes();
    guard.add(res);
    res.writableLength = 10;
    guard.remove(res);
    now = 5000;
    guard.sweep();
    assert.equal(res.destroyed, false);
    const off = new StallGuard(0, () => now);
    const other = new FakeRes();
    off.add(other);
    other.writableLength = 10;
    now = 100_000;
    off.sweep();
    assert.equal(other.destroyed, false);
    guard.close();
    off.close();
  });
});
