import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { failsToStart } from '../../test/helpers/apiserver-process.js';
import { LOG_BATCH_DEFAULTS } from '../audit/buffered.js';
import { parseFlags, type CliOptions } from './apiserver-flags.js';
import { batchFlags, logBatchFromFlags } from './audit-batch-flags.js';

const dir = mkdtempSync(join(tmpdir(), 'orch-audit-flags-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const kubeconfig = join(dir, 'audit-webhook.yaml');
writeFileSync(kubeconfig, 'clusters:\n- name: audit\n  cluster:\n    server: https://127.0.0.1:9443/audit\n    insecure-skip-tls-verify: true\n');
const base = ['--storage-backend=memory', `--data-dir=${join(dir, 'data')}`];
const parse = (...args: string[]) => (parseFlags([...base, ...args]) as CliOptions).server;

describe('--audit-webhook-* and --audit-log-batch-* flags (spec 2.11, issue 17)', () => {
  it('reference behaviour: without the flags there is no webhook backend', () => {
    assert.equal(parse().auditWebhook, undefined);
  });

  it('reference behaviour: the config file alone gives the webhook with every default', () => {
    assert.deepEqual(parse(`--audit-webhook-config-file=${kubeconfig}`).auditWebhook, { configFile: kubeconfig });
  });

  it('reference behaviour: every webhook flag lands in the options', () => {
    const got = parse(
      `--audit-webhook-config-file=${kubeconfig}`,
      '--audit-webhook-version=audit.orch.io/v1',
      '--audit-webhook-initial-backoff=1m30s',
      '--audit-webhook-mode=blocking-strict',
      '--audit-webhook-batch-buffer-size=50',
      '--audit-webhook-batch-max-size=7',
      '--audit-webhook-batch-max-wait=250ms',
      '--audit-webhook-batch-throttle-enable=false',
      '--audit-webhook-batch-throttle-qps=2.5',
      '--audit-webhook-batch-throttle-burst=3',
    ).auditWebhook;
    assert.deepEqual(got, {
      configFile: kubeconfig,
      version: 'audit.orch.io/v1',
      initialBackoffMs: 90_000,
      mode: 'blocking-strict',
      batch: { bufferSize: 50, maxBatchSize: 7, maxBatchWaitMs: 250, throttleEnable: false, throttleQPS: 2.5, throttleBurst: 3 },
    });
  });

  const refused: [string[], RegExp][] = [
    [['--audit-webhook-mode=batch'], /--audit-webhook-mode: needs --audit-webhook-config-file/],
    [['--audit-webhook-batch-max-size=5'], /--audit-webhook-batch-max-size: needs --audit-webhook-config-file/],
    [['--audit-log-batch-max-size=5'], /--audit-log-batch-max-size: needs --audit-log-path/],
    [[`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-mode=async'], /--audit-webhook-mode: invalid mode "async"/],
    [[`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-version=audit.orch.io/v1beta1'], /--audit-webhook-version: invalid group version/],
    [[`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-initial-backoff=10'], /--audit-webhook-initial-backoff: invalid duration "10"/],
    [[`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-initial-backoff=0s'], /--audit-webhook-initial-backoff: invalid value 0ms: must be a positive duration/],
    [[`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-batch-buffer-size=ten'], /--audit-webhook-batch-buffer-size: invalid integer "ten"/],
    [[`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-batch-buffer-size=0'], /--audit-webhook-batch-buffer-size: invalid value 0: must be a positive integer/],
    [[`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-batch-max-size=-1'], /--audit-webhook-batch-max-size: invalid value -1/],
    [[`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-batch-max-wait=soon'], /--audit-webhook-batch-max-wait: invalid duration "soon"/],
    [[`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-batch-throttle-enable=yes'], /--audit-webhook-batch-throttle-enable: invalid boolean "yes"/],
    [[`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-batch-throttle-qps=fast'], /--audit-webhook-batch-throttle-qps: invalid number "fast"/],
    [[`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-batch-throttle-qps=0'], /--audit-webhook-batch-throttle-qps: invalid value 0: must be a positive number when the throttle is enabled/],
    [[`--audit-webhook-config-file=${join(dir, 'nope.yaml')}`], /--audit-webhook-config-file .*nope.yaml: cannot be read as a kubeconfig/],
    [['--audit-webhook-config-file='], /--audit-webhook-config-file: a file path is required/],
  ];
  for (const [args, error] of refused) {
    it(`reference behaviour: ${args.at(-1)} is refused naming the flag`, () => {
      assert.throws(() => parse(...args), error);
    });
  }

  it('reference behaviour: the batch values are not range-checked outside batch mode', () => {
    const got = parse(`--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-mode=blocking', '--audit-webhook-batch-max-size=0').auditWebhook;
    assert.deepEqual(got?.batch, { maxBatchSize: 0 });
  });

  it('reference behaviour: the log batch flags over the log defaults, checked only in batch mode', () => {
    assert.equal(logBatchFromFlags({}), undefined);
    assert.deepEqual(logBatchFromFlags({ 'audit-log-mode': 'batch', 'audit-log-batch-max-size': '20', 'audit-log-batch-max-wait': '5s' }), { ...LOG_BATCH_DEFAULTS, maxBatchSize: 20, maxBatchWaitMs: 5000 });
    assert.throws(() => logBatchFromFlags({ 'audit-log-mode': 'batch', 'audit-log-batch-buffer-size': '0' }), /--audit-log-batch-buffer-size: invalid value 0: must be a positive integer/);
    assert.throws(() => logBatchFromFlags({ 'audit-log-mode': 'batch', 'audit-log-batch-throttle-enable': 'true' }), /--audit-log-batch-throttle-qps: invalid value 0/);
    assert.deepEqual(logBatchFromFlags({ 'audit-log-mode': 'blocking', 'audit-log-batch-buffer-size': '0' }), { ...LOG_BATCH_DEFAULTS, bufferSize: 0 });
  });

  it('reference behaviour: Go boolean spellings are accepted', () => {
    const cases: [string, boolean][] = [['true', true], ['1', true], ['t', true], ['TRUE', true], ['false', false], ['0', false], ['F', false], ['False', false]];
    for (const [text, want] of cases) assert.equal(batchFlags({ 'audit-webhook-batch-throttle-enable': text }, 'webhook').throttleEnable, want, text);
  });

  it('reference behaviour: a bad audit webhook flag is a start-up error of the real CLI (exit 1, the flag named)', async () => {
    const stderr = await failsToStart([...base, `--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-batch-buffer-size=0']);
    assert.match(stderr, /--audit-webhook-batch-buffer-size: invalid value 0: must be a positive integer/);
  });
});
