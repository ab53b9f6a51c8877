/**
 * certificatesigningrequest-signing-controller: issues certificates for approved requests to the built-in
 * signers with the `--cluster-signing-*` CA. A request its signer refuses (subject, alternative names or
 * usages outside the signer's rules) gets a Failed condition instead. Without signing files it does nothing.
 */
import { WorkQueue, isConflict, isNotFound, type KubeObject } from '../../client/index.js';
import { runQueueWorkers, startAndSync, untilAborted } from '../bootstrap/queue-workers.js';
import type { ControllerContext, ControllerDescriptor } from '../contract.js';
import { CSRS, csrSpec, hasCertificate, hasTrueCondition, usagesOf, withCondition } from './csr.js';
import { BUILT_IN_SIGNERS, certificateDurationMs, mapUsages, validityWindow } from './rules.js';
import { issueCertificate, loadSigningCa, parseCertificateRequest, type SigningCa } from './x509.js';

const NAME = 'certificatesigningrequest-signing-controller';

async function run(ctx: ControllerContext): Promise<void> {
  const files = ctx.settings.clusterSigning;
  if (!files) {
    ctx.log('no cluster signing certificate and key are configured: requests to the built-in signers stay unsigned');
    return untilAborted(ctx.signal);
  }
  let ca: SigningCa;
  try {
    ca = await loadSigningCa(files.certPem, files.keyPem);
  } catch (e) {
    // Restarting would not change the files: say why once and stay idle.
    ctx.log(`the cluster signing certificate and key cannot be used (${e instanceof Error ? e.message : String(e)}): requests to the built-in signers stay unsigned`);
    return untilAborted(ctx.signal);
  }

  const csrs = ctx.informers.informerFor({ gvr: CSRS });
  const queue = new WorkQueue<string>();
  const enqueue = (o: KubeObject) => queue.add(o.metadata.name ?? '');
  const remove = csrs.addEventHandler({ onAdd: enqueue, onUpdate: (_old, o) => enqueue(o) });
  const client = ctx.client.resource(CSRS);

  const writeStatus = async (obj: KubeObject): Promise<void> => {
    try {
      await client.update(obj, { subresource: 'status', signal: ctx.signal });
    } catch (e) {
      if (!isConflict(e) && !isNotFound(e)) throw e;
    }
  };

  const handle = async (name: string): Promise<void> => {
    const csr = csrs.store.get(name);
    if (!csr || hasCertificate(csr) || !hasTrueCondition(csr, 'Approved') || hasTrueCondition(csr, 'Denied') || hasTrueCondition(csr, 'Failed')) return;
    const spec = csrSpec(csr);
    const accepts = BUILT_IN_SIGNERS.get(String(spec.signerName ?? ''));
    if (!accepts) return;
    const parsed = await parseCertificateRequest(spec.request);
    const usages = usagesOf(csr);
    const problem = accepts(parsed.facts, usages);
    if (problem !== undefined) {
      const failed = { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: problem, lastUpdateTime: new Date(ctx.now()).toISOString() };
      return writeStatus(withCondition(csr, failed));
    }
    const now = ctx.now();
    const window = validityWindow(now, certificateDurationMs(ctx.settings.clusterSigningDurationMs, spec.expirationSeconds), ca.notAfter);
    const pem = await issueCertificate(ca, parsed, { ...window, ...mapUsages(usages) });
    await writeStatus({ ...csr, status: { ...(csr.status as object), certificate: Buffer.from(pem).toString('base64') } });
  };

  try {
    if (!(await startAndSync(ctx, [csrs]))) return;
    await runQueueWorkers(ctx, queue, ctx.settings.concurrency(NAME), handle);
  } finally {
    remove();
  }
}

export const csrSigningController: ControllerDescriptor = { name: NAME, serviceAccountName: 'certificate-controller', run };
