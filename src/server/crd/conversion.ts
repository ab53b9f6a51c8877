/**
 * How this server reaches a CRD's conversion webhook: the admission webhooks' own client (URL or service
 * resolution, caBundle TLS, the HTTP/2 and keep-alive pools, deadlines, answer bounds) with the reference's
 * 30 s deadline, through the egress selection (a URL by the control plane's, a service by the cluster's).
 */
import type { ObjectReader } from '../../admission/types.js';
import { postReview, type Target } from '../../admission/webhook/client.js';
import type { ClientConfig, ServiceRef } from '../../admission/webhook/compile.js';
import { targetForService, targetForURL } from '../../admission/webhook/resolve.js';
import { CONVERSION_TIMEOUT_MS, reviewVersionFor, webhookConversion } from '../../registry/custom/conversion.js';
import { servedNames, type Crd } from '../../registry/custom/crd.js';
import type { AsyncConversion } from '../../registry/index.js';
import type { Dialer } from '../../util/dialer.js';

/** The port of a service reference that names none (the reference's default). */
const DEFAULT_SERVICE_PORT = 443;

export interface ConversionCallDeps {
  /** Services and endpoints, to resolve a `service` reference. */
  objects: ObjectReader;
  egress?: { readonly controlplane?: Dialer; readonly cluster?: Dialer };
  /** The deadline of one call (default 30 s, as the reference). */
  timeoutMs?: number;
}

/** The client settings of `spec.conversion.webhook.clientConfig`; throws when it cannot be used. */
export function conversionClientConfig(crd: Crd): ClientConfig {
  const cc = crd.spec.conversion?.webhook?.clientConfig;
  const base64 = cc?.caBundle ?? '';
  const ca = base64 !== '' ? Buffer.from(base64, 'base64').toString('utf8') : undefined;
  if (typeof cc?.url === 'string' && cc.url !== '') return { url: cc.url, ca, key: `conversion url ${cc.url}\n${ca ?? ''}` };
  const s = cc?.service;
  if (s && s.namespace && s.name) {
    const service: ServiceRef = { namespace: s.namespace, name: s.name, path: s.path ?? '', port: s.port ?? DEFAULT_SERVICE_PORT };
    return { service, ca, key: `conversion svc ${s.namespace}/${s.name}:${service.port}\n${ca ?? ''}` };
  }
  throw new Error('spec.conversion.webhook.clientConfig: neither url nor service is set');
}

const viaEgress = (t: Target, dialer: Dialer | undefined): Target => (dialer ? { ...t, dialer, poolKey: `${t.poolKey}\0${dialer.id}` } : t);

/** Makes the AsyncConversion of a webhook CRD (CustomTypeOptions.webhookConversion). */
export function conversionWebhooks(deps: ConversionCallDeps): (crd: Crd, storageApiVersion: string) => AsyncConversion {
  const timeoutMs = deps.timeoutMs ?? CONVERSION_TIMEOUT_MS;
  const timeoutParam = `timeout=${Math.round(timeoutMs / 1000)}s`;
  return (crd, storageApiVersion) => {
    const listed = crd.spec.conversion?.webhook?.conversionReviewVersions;
    const reviewVersion = reviewVersionFor(listed);
    if (!reviewVersion) throw new Error(`spec.conversion.webhook.conversionReviewVersions: none of ${JSON.stringify(listed ?? [])} can be sent`);
    const client = conversionClientConfig(crd);
    const target = async (): Promise<Target> => {
      if (client.url !== undefined) return viaEgress(targetForURL(client.url, client, timeoutParam), deps.egress?.controlplane);
      return viaEgress(await targetForService(deps.objects, client.service as ServiceRef, client, timeoutParam), deps.egress?.cluster);
    };
    return webhookConversion({
      group: crd.spec.group,
      kind: servedNames(crd).kind,
      storageApiVersion,
      reviewVersion,
      post: async (body) => postReview(await target(), body, timeoutMs),
    });
  };
}
