/**
 * Hands the egress selector's dialers (`--egress-selector-config-file`) to the clients that call out:
 * the token and audit webhooks take the control-plane dialer through their options; the authorization
 * webhook and the admission webhooks get theirs where the server builds them.
 */
import { loadEgressSelector, type EgressDialers } from '../egress/index.js';
import type { AuditWebhookOptions } from '../audit/webhook-sink.js';
import type { TokenWebhookConfig } from '../authn/webhook-token.js';

interface WebhookClientOptions {
  egressSelectorConfigFile?: string;
  authenticationTokenWebhook?: TokenWebhookConfig;
  auditWebhook?: AuditWebhookOptions;
}

/** The dialers (undefined without the flag) and the options with the control-plane dialer filled in. */
export function setUpEgress<O extends WebhookClientOptions>(opts: O, log: (msg: string) => void): { opts: O; egress: EgressDialers | undefined } {
  if (opts.egressSelectorConfigFile === undefined) return { opts, egress: undefined };
  const egress = loadEgressSelector(opts.egressSelectorConfigFile, log);
  const dialer = egress.controlplane;
  if (!dialer) return { opts, egress };
  return {
    egress,
    opts: {
      ...opts,
      ...(opts.authenticationTokenWebhook ? { authenticationTokenWebhook: { ...opts.authenticationTokenWebhook, dialer } } : {}),
      ...(opts.auditWebhook ? { auditWebhook: { ...opts.auditWebhook, dialer } } : {}),
    },
  };
}
