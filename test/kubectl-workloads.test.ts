/**
 * Real kubectl against the whole built-in API (spec 1.4, 4.1, 9): the workload, policy and scaling
 * commands a new user runs first.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { GROUP_SUFFIX } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { kubectl } from './helpers/kubectl.js';

describe('real kubectl with workloads, jobs, scaling and budgets (spec 4.1, 9.6)', () => {
  let server: RunningServer;
  let dir: string;
  let k: ReturnType<typeof kubectl>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-kubectl-wl-'));
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'memory' }, writeKubeconfig: true });
    k = kubectl(server.kubeconfigPath!);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('create deployment stores the reference defaults (spec 9.6) and get/scale/rollout work on it', async () => {
    assert.match(await k(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2']), /deployment.apps\/web created/);
    const d = parse(await k(['get', 'deploy', 'web', '-o', 'yaml']));
    assert.equal(d.spec.progressDeadlineSeconds, 600);
    assert.equal(d.spec.revisionHistoryLimit, 10);
    assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    assert.equal(d.spec.template.spec.restartPolicy, 'Always');
    assert.match(await k(['get', 'deployments']), /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nweb\s+0\/2\s+/);

    assert.match(await k(['scale', 'deployment/web', '--replicas=5']), /deployment.apps\/web scaled/);
    assert.equal(parse(await k(['get', 'deploy', 'web', '-o', 'yaml'])).spec.replicas, 5);
    const scale = JSON.parse(await k(['get', '--raw', '/apis/apps/v1/namespaces/default/deployments/web/scale']));
    assert.deepEqual([scale.kind, scale.spec.replicas, scale.status.selector], ['Scale', 5, 'app=web']);

    // Without a deployment controller there are no ReplicaSets: history is empty but the command works.
    assert.match(await k(['rollout', 'history', 'deployment/web']), /deployment.apps\/web/);
  });

  it('expose makes a Service with an allocated cluster IP for the deployment', async () => {
    assert.match(await k(['expose', 'deployment', 'web', '--port=80', '--target-port=8080']), /service\/web exposed/);
    const svc = parse(await k(['get', 'svc', 'web', '-o', 'yaml']));
    assert.deepEqual(svc.spec.selector, { app: 'web' });
    assert.match(svc.spec.clusterIP, /^\d+\.\d+\.\d+\.\d+$/);
  });

  it('create job and create cronjob store the batch defaults; a bad schedule names the field', async () => {
    assert.match(await k(['create', 'job', 'once', '--image=busybox', '--', 'true']), /job.batch\/once created/);
    const job = parse(await k(['get', 'job', 'once', '-o', 'yaml']));
    assert.deepEqual([job.spec.backoffLimit, job.spec.completions, job.spec.parallelism, job.spec.completionMode], [6, 1, 1, 'NonIndexed']);
    assert.ok(job.spec.selector.matchLabels, 'the server generated the selector');
    assert.match(await k(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *', '--', 'true']), /cronjob.batch\/tick created/);
    assert.match(await k(['get', 'cj']), /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\ntick\s+\*\/5 \* \* \* \*/);
    await assert.rejects(k(['create', 'cronjob', 'bad', '--image=busybox', '--schedule=not a schedule']), /spec.schedule/);
  });

  it('create pdb and get all list the new kinds', async () => {
    assert.match(await k(['create', 'pdb', 'web-pdb', '--selector=app=web', '--min-available=1']), /poddisruptionbudget.policy\/web-pdb created/);
    assert.match(await k(['get', 'pdb']), /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\nweb-pdb\s+1\s+N\/A/);
    const all = await k(['get', 'all']);
    for (const kind of ['service/kubernetes', 'service/web', 'deployment.apps/web', 'cronjob.batch/tick', 'job.batch/once']) assert.ok(all.includes(kind), `${kind} in:\n${all}`);
    // The other category of the reference: the API's own extension points.
    const extensions = await k(['get', 'api-extensions', '-o', 'name']);
    assert.match(extensions, new RegExp(`^apiservice\\.apiregistration\\.${GROUP_SUFFIX.replace('.', '\\.')}/v1\\.apps$`, 'm'));
  });

  it('explain reads the served OpenAPI for any kind', async () => {
    const out = await k(['explain', 'deployment.spec.strategy']);
    assert.match(out, /KIND:\s+Deployment/);
    assert.match(out, /rollingUpdate\s+<RollingUpdateDeployment>/);
    assert.match(await k(['explain', 'cronjobs.spec.jobTemplate.spec']), /backoffLimit\s+<integer>/);
  });
});
