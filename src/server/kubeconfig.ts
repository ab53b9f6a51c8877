/**
 * The admin kubeconfig the server writes at start-up, so that `kubectl --kubeconfig <file>` works at once
 * (architecture: "What we ship"). Certificates are embedded (`*-data`) so the file is self-contained.
 */
import { stringify } from 'yaml';
import { GROUP_SUFFIX } from '../api/naming.js';

/** The maker token, derived so that only naming.ts spells it (architecture rule 5). */
export const DEFAULT_CLUSTER_NAME = GROUP_SUFFIX.slice(0, GROUP_SUFFIX.indexOf('.'));

export interface KubeconfigOptions {
  server: string;
  caCertPem: string;
  user: string;
  token?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  cluster?: string;
  context?: string;
  namespace?: string;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

export function kubeconfigYaml(o: KubeconfigOptions): string {
  // A certificate without its key (or the reverse) would only fail later inside the client, less clearly.
  if ((o.clientCertPem === undefined) !== (o.clientKeyPem === undefined)) {
    throw new Error('kubeconfig: clientCertPem and clientKeyPem must be given together');
  }
  const cluster = o.cluster ?? DEFAULT_CLUSTER_NAME;
  const context = o.context ?? `${o.user}@${cluster}`;

  const user: Record<string, string> = {};
  if (o.clientCertPem !== undefined && o.clientKeyPem !== undefined) {
    user['client-certificate-data'] = b64(o.clientCertPem);
    user['client-key-data'] = b64(o.clientKeyPem);
  }
  if (o.token !== undefined) user.token = o.token;

  const ctx: Record<string, string> = { cluster, user: o.user };
  if (o.namespace !== undefined) ctx.namespace = o.namespace;

  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{ name: cluster, cluster: { server: o.server, 'certificate-authority-data': b64(o.caCertPem) } }],
    users: [{ name: o.user, user }],
    contexts: [{ name: context, context: ctx }],
    'current-context': context,
  };
  // YAML 1.1 as the reference client reads it (so `yes`, `on`, `0123` get quoted); never fold base64.
  return stringify(doc, { lineWidth: 0, version: '1.1' });
}
