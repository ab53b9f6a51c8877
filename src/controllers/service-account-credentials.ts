/**
 * `--use-service-account-credentials`: each controller acts as its own ServiceAccount in the system
 * namespace. The manager (with its own credential) makes sure the account exists and asks the API for a
 * bound token (TokenRequest), as the reference's controller client builder does; the token is asked for
 * again before it expires, and at once after the server refuses it.
 */
import { AUTHENTICATION_GROUP } from '../api/naming.js';
import type { Client, ClusterConnection, CredentialSource, Credentials, KubeObject } from '../client/index.js';
import { isAlreadyExists } from '../client/index.js';

/** Tokens last an hour and are replaced after 80 % of that, as the reference's builder does. */
export const TOKEN_SECONDS = 3600;
const REFRESH_FRACTION = 0.8;

interface TokenRequest extends KubeObject {
  spec: { expirationSeconds?: number; audiences?: string[] };
  status?: { token?: string; expirationTimestamp?: string };
}

const SERVICE_ACCOUNTS = { group: '', version: 'v1', plural: 'serviceaccounts' } as const;

/** The username a controller's requests carry under this mode. */
export const serviceAccountUser = (namespace: string, name: string) => `system:serviceaccount:${namespace}:${name}`;

/** Creates the ServiceAccount unless it is there already. */
export async function ensureServiceAccount(root: Client, namespace: string, name: string, signal?: AbortSignal): Promise<void> {
  const accounts = root.resource(SERVICE_ACCOUNTS, namespace);
  try {
    await accounts.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } }, signal ? { signal } : {});
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

/** A credential source that holds a TokenRequest token for one ServiceAccount and renews it in time. */
export class ServiceAccountTokenSource implements CredentialSource {
  private current: { token: string; renewAt: number } | undefined;
  private pending: Promise<Credentials> | undefined;

  constructor(
    private readonly root: Client,
    private readonly namespace: string,
    private readonly name: string,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Credentials | Promise<Credentials> {
    const c = this.current;
    if (c && this.now() < c.renewAt) return { token: c.token };
    return (this.pending ??= this.fetch().finally(() => (this.pending = undefined)));
  }

  invalidate(): void {
    this.current = undefined;
  }

  private async fetch(): Promise<Credentials> {
    const accounts = this.root.resource<TokenRequest>(SERVICE_ACCOUNTS, this.namespace);
    const asked = this.now();
    const request = () =>
      accounts.create({ apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenRequest', metadata: {}, spec: { expirationSeconds: TOKEN_SECONDS } }, { name: this.name, subresource: 'token' });
    let answer: TokenRequest;
    try {
      answer = await request();
    } catch (e) {
      // Deleted meanwhile (or never made): make it again once, then ask again.
      if ((e as { code?: number }).code !== 404) throw e;
      await ensureServiceAccount(this.root, this.namespace, this.name);
      answer = await request();
    }
    const token = answer.status?.token;
    if (!token) throw new Error(`TokenRequest for service account ${this.namespace}/${this.name} returned no token`);
    const expires = Date.parse(answer.status?.expirationTimestamp ?? '');
    const lifetime = Number.isFinite(expires) ? Math.max(0, expires - asked) : TOKEN_SECONDS * 1000;
    this.current = { token, renewAt: asked + lifetime * REFRESH_FRACTION };
    return { token };
  }
}

/** The manager's connection with the controller's token in place of its own credential. */
export function serviceAccountConnection(base: ClusterConnection, root: Client, namespace: string, name: string): ClusterConnection {
  return { ...base, credentials: new ServiceAccountTokenSource(root, namespace, name), userAgent: `${base.userAgent ?? 'controller-manager'}/${name}` };
}
