/**
 * Hands the egress selector's dialers (`--egress-selector-config-file`) to the clients that call out:
 * the token and audit webhooks take the control-plane dialer through their options; the authorization
 * webhook and the admission webhooks get theirs where the server builds them; an etcd backend gets the
 * etcd dialer in its storage spec.
 */
import { loadEgressSelector, type EgressDialers } from '../egress/index.js';
import type { AuditWebhookOptions } from '../audit/webhook-sink.js';
import type { TokenWebhookConfig } from '../authn/webhook-token.js';
import type { BackendSpec } from '../storage/index.js';
// The plan alone, not the etcd driver: a server that never uses etcd does not load gRPC.
import { forwardingPlan } from '../storage/etcd/etcd-forwarding-plan.js';
import type { Dialer } from '../util/dialer.js';

interface WebhookClientOptions {
  egressSelectorConfigFile?: string;
  authenticationTokenWebhook?: TokenWebhookConfig;
  auditWebhook?: AuditWebhookOptions;
  storage?: BackendSpec;
}

/**
 * The dialers (undefined without the flag) and the options with them filled in: the control-plane dialer
 * for the webhooks, the etcd dialer for an etcd storage backend.
 */
export function setUpEgress<O extends WebhookClientOptions>(opts: O, log: (msg: string) => void): { opts: O; egress: EgressDialers | undefined } {
  if (opts.egressSelectorConfigFile === undefined) return { opts, egress: undefined };
  const egress = loadEgressSelector(opts.egressSelectorConfigFile, log);
  const dialer = egress.controlplane;
  return {
    egress,
    opts: {
      ...opts,
      ...(dialer && opts.authenticationTokenWebhook ? { authenticationTokenWebhook: { ...opts.authenticationTokenWebhook, dialer } } : {}),
      ...(dialer && opts.auditWebhook ? { auditWebhook: { ...opts.auditWebhook, dialer } } : {}),
      ...etcdStorage(opts.storage, egress.etcd, opts.egressSelectorConfigFile, log),
    },
  };
}

/** The storage spec with the etcd dialer; endpoints that cannot be proxied are a start-up error. */
function etcdStorage(storage: BackendSpec | undefined, dialer: Dialer | undefined, file: string, log: (msg: string) => void): { storage?: BackendSpec } {
  if (!dialer) return {};
  if (storage?.type !== 'etcd') {
    log(`--egress-selector-config-file ${file}: the "etcd" selection has no effect: the storage backend is ${storage?.type ?? 'memory'}, not etcd`);
    return {};
  }
  try {
    forwardingPlan(storage.endpoints);
  } catch (e) {
    throw new Error(`--egress-selector-config-file ${file}: the "etcd" selection cannot carry --etcd-servers=${storage.endpoints.join(',')}: ${(e as Error).message}`);
  }
  return { storage: { ...storage, dialer } };
}
