/**
 * A short fixed-seed fuzz run inside `npm test` (issue 23, "a fuzz suite"; spec 7 errors, 8 limits): a few
 * thousand generated requests against an in-process server as a user that may write only in `fuzz`. The run
 * fails on an undocumented 5xx, an error without a Status body, a dropped connection or hang, or any change
 * to the sentinel objects. `npm run fuzz -- --seed 20261124 --only <n>` reproduces a failing input.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { describeFailure, fuzz } from './fuzz/driver.js';

const SEED = 20261124;
const INPUTS = 3000;

describe('fuzz suite, fixed seed (issue 23; spec 7, 8)', () => {
  let server: RunningServer;
  const internalErrors: string[] = [];
  before(async () => {
    server = await startServer({
      port: 0,
      storage: { type: 'memory' },
      serviceClusterIPRange: '10.96.0.0/12',
      log: (m) => void (m.startsWith('internal error') && internalErrors.push(m)),
    });
  });
  after(() => server.close());

  it(`${INPUTS} inputs: no undocumented 5xx, every error a Status, no reset or hang, sentinels unchanged`, { timeout: 180_000 }, async () => {
    const report = await fuzz(server, { seed: SEED, inputs: INPUTS, concurrency: 6, hangMs: 60_000, maxFailures: 10 });
    const shown = report.failures.map((f) => describeFailure(SEED, f)).join('\n');
    assert.equal(report.sent, INPUTS);
    assert.deepEqual(report.failures.map((f) => f.reason), [], `${shown}\n${internalErrors.slice(0, 3).join('\n')}`);
    assert.deepEqual(report.changed, []);
    assert.deepEqual(internalErrors, []);
    // The run reached the API: writes landed in `fuzz` and reads, refusals and validation errors all occurred.
    for (const code of ['200', '201', '400', '403', '404', '422']) assert.ok((report.byStatus[code] ?? 0) > 0, `no ${code} in ${JSON.stringify(report.byStatus)}`);
  });
});
