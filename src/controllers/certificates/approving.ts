/**
 * certificatesigningrequest-approving-controller: approves node client certificate requests when a
 * SubjectAccessReview says the requester may `create` the `selfnodeclient` (its own node) or `nodeclient`
 * subresource of certificatesigningrequests. Denied, approved and issued requests are left alone; a
 * recognized request that is not yet allowed is retried with backoff (its requester may get the right later).
 */
import { AUTHORIZATION_GROUP, CERTIFICATES_GROUP } from '../../api/naming.js';
import { WorkQueue, isConflict, isNotFound, type KubeObject } from '../../client/index.js';
import { QuietRetry, runQueueWorkers, startAndSync } from '../bootstrap/queue-workers.js';
import type { ControllerContext, ControllerDescriptor } from '../contract.js';
import { CSRS, csrSpec, hasCertificate, hasTrueCondition, usagesOf, withCondition } from './csr.js';
import { approvalPermissions } from './rules.js';
import { parseCertificateRequest } from './x509.js';

const SUBJECT_ACCESS_REVIEWS = { group: AUTHORIZATION_GROUP, version: 'v1', plural: 'subjectaccessreviews' };

const APPROVAL_MESSAGES: Record<string, string> = {
  selfnodeclient: 'Approved automatically: the node may request its own client certificate (SubjectAccessReview).',
  nodeclient: 'Approved automatically: the requester may request node client certificates (SubjectAccessReview).',
};

async function run(ctx: ControllerContext): Promise<void> {
  const csrs = ctx.informers.informerFor({ gvr: CSRS });
  const queue = new WorkQueue<string>();
  const enqueue = (o: KubeObject) => queue.add(o.metadata.name ?? '');
  const remove = csrs.addEventHandler({ onAdd: enqueue, onUpdate: (_old, o) => enqueue(o) });
  const client = ctx.client.resource(CSRS);
  const reviews = ctx.client.resource(SUBJECT_ACCESS_REVIEWS);

  const allowed = async (csr: KubeObject, subresource: string): Promise<boolean> => {
    const spec = csrSpec(csr);
    const review = await reviews.create(
      {
        apiVersion: `${AUTHORIZATION_GROUP}/v1`,
        kind: 'SubjectAccessReview',
        metadata: {},
        spec: {
          user: spec.username,
          uid: spec.uid,
          groups: spec.groups,
          extra: spec.extra,
          resourceAttributes: { group: CERTIFICATES_GROUP, version: '*', resource: 'certificatesigningrequests', subresource, verb: 'create' },
        },
      },
      { signal: ctx.signal },
    );
    const status = review.status as { allowed?: unknown } | undefined;
    return status?.allowed === true;
  };

  const handle = async (name: string): Promise<void> => {
    const csr = csrs.store.get(name);
    if (!csr || hasCertificate(csr) || hasTrueCondition(csr, 'Approved') || hasTrueCondition(csr, 'Denied')) return;
    const spec = csrSpec(csr);
    const parsed = await parseCertificateRequest(spec.request);
    const tried = approvalPermissions(String(spec.signerName ?? ''), String(spec.username ?? ''), parsed.facts, usagesOf(csr));
    for (const subresource of tried) {
      if (!(await allowed(csr, subresource))) continue;
      const approved = withCondition(csr, { type: 'Approved', status: 'True', reason: 'AutoApproved', message: APPROVAL_MESSAGES[subresource] });
      try {
        await client.update(approved, { subresource: 'approval', signal: ctx.signal });
      } catch (e) {
        // A newer copy (its event brings the request back) or a removed request.
        if (!isConflict(e) && !isNotFound(e)) throw e;
      }
      return;
    }
    if (tried.length > 0) throw new QuietRetry(`recognized as ${tried.join(', ')} but the SubjectAccessReview did not allow it`);
  };

  try {
    if (!(await startAndSync(ctx, [csrs]))) return;
    await runQueueWorkers(ctx, queue, ctx.settings.concurrency('certificatesigningrequest-approving-controller'), handle);
  } finally {
    remove();
  }
}

export const csrApprovingController: ControllerDescriptor = {
  name: 'certificatesigningrequest-approving-controller',
  serviceAccountName: 'certificate-controller',
  run,
};
