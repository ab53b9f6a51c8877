/**
 * Certificates for the authenticator tests: a real CA from `ensureServingCerts`, plus hand-made ones
 * (intermediates, odd validity, missing or other key usages) that `issueClientCert` deliberately cannot make.
 */
import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { ensureServingCerts } from '../server/tls.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../errors/index.js';
import type { AuthRequest, Authenticator, UserInfo } from './types.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;

export interface Ca {
  caCertPem: string;
  caKeyPem: string;
}

/** A fresh CA in a temporary directory, removed again by `cleanup`. */
export async function tempCa(): Promise<Ca & { cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'authn-ca-'));
  const { caCertPem, caKeyPem } = await ensureServingCerts(dir, { hosts: [] });
  return { caCertPem, caKeyPem, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface CraftOptions {
  commonName: string;
  organizations?: string[];
  /** Offsets from now in days. */
  notBeforeDays?: number;
  notAfterDays?: number;
  /** A CA certificate (for intermediates). */
  ca?: boolean;
  /** Extended key usage OIDs; null leaves the extension out. Default: clientAuth. */
  eku?: string[] | null;
}

/** A certificate signed by `issuer`, with a fresh P-256 key; returns PEM cert and PKCS#8 key. */
export async function craftCert(issuer: Ca, o: CraftOptions): Promise<{ certPem: string; keyPem: string }> {
  const issuerCert = new x509.X509Certificate(issuer.caCertPem);
  const der = createPrivateKey(issuer.caKeyPem).export({ format: 'der', type: 'pkcs8' });
  const signingKey = await webcrypto.subtle.importKey('pkcs8', der, EC, false, ['sign']);
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(o.ca ?? false, undefined, true),
    await x509.AuthorityKeyIdentifierExtension.create(issuerCert.publicKey),
  ];
  if (o.ca) {
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true));
    extensions.push(await x509.SubjectKeyIdentifierExtension.create(keys.publicKey));
  }
  const eku = o.eku === undefined ? [x509.ExtendedKeyUsage.clientAuth] : o.eku;
  if (eku !== null) extensions.push(new x509.ExtendedKeyUsageExtension(eku));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: `01${randomBytes(8).toString('hex')}`,
    subject: [...(o.organizations ?? []).map((org) => ({ O: [org] })), { CN: [o.commonName] }],
    issuer: issuerCert.subject,
    notBefore: new Date(now + (o.notBeforeDays ?? -1) * DAY),
    notAfter: new Date(now + (o.notAfterDays ?? 30) * DAY),
    publicKey: keys.publicKey,
    signingKey,
    signingAlgorithm: SIGN,
    extensions,
  });
  const keyPem = webcrypto.subtle.exportKey('pkcs8', keys.privateKey).then((k) =>
    createPrivateKey({ key: Buffer.from(k), format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' }) as string,
  );
  return { certPem: cert.toString('pem'), keyPem: await keyPem };
}

/** DER of a PEM certificate, as `getPeerCertificate().raw` holds it. */
export const derOf = (pem: string): Buffer => new X509Certificate(pem).raw;

/** Shaped like `tlsSocket.getPeerCertificate(true)`: `raw` and an issuer chain ending in a self-reference. */
export function detailedPeer(...pems: string[]): Record<string, unknown> {
  const nodes = pems.map((p) => ({ raw: derOf(p), subject: {} }) as Record<string, unknown>);
  nodes.forEach((n, i) => (n.issuerCertificate = nodes[i + 1] ?? n));
  return nodes[0] ?? {};
}

/** How one authenticator is exercised by the contract suite below. */
export interface AuthenticatorContractCase {
  name: string;
  make(): Authenticator | Promise<Authenticator>;
  /** A request with credentials it accepts, and (part of) the user they stand for. */
  valid(): AuthRequest | Promise<AuthRequest>;
  expectedUser: Pick<UserInfo, 'username'> & Partial<UserInfo>;
  /** Requests with credentials of its kind that are wrong: each must be a 401. */
  invalid(): AuthRequest[] | Promise<AuthRequest[]>;
  /** Requests with credentials of another kind: each must get no opinion. */
  foreign(): AuthRequest[] | Promise<AuthRequest[]>;
}

const settle = async (a: Authenticator, req: AuthRequest): Promise<{ user?: UserInfo; error?: unknown }> => {
  try {
    return { user: await a.authenticate(req) };
  } catch (error) {
    return { error };
  }
};

/**
 * The Authenticator seam's contract (architecture: "The seams"): no credentials and other kinds of
 * credentials get no opinion, its own valid credentials give the user, its own wrong credentials are a 401
 * StatusError (never another error), and a caller changing the returned user does not change later answers.
 */
export function authenticatorContract(c: AuthenticatorContractCase): void {
  describe(`Authenticator contract: ${c.name}`, () => {
    it('no Authorization header and no certificate: no opinion', async () => {
      const a = await c.make();
      assert.equal((await settle(a, { headers: {} })).user, undefined);
      assert.equal((await settle(a, { headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' } })).user, undefined);
    });
    it('credentials of another kind: no opinion', async () => {
      const a = await c.make();
      for (const req of await c.foreign()) assert.deepEqual(await settle(a, req), { user: undefined });
    });
    it('valid credentials give the user, every time, unaffected by callers changing it', async () => {
      const a = await c.make();
      const first = await settle(a, await c.valid());
      assert.equal(first.error, undefined, String(first.error));
      for (const [k, v] of Object.entries(c.expectedUser)) assert.deepEqual(first.user?.[k as keyof UserInfo], v, k);
      first.user?.groups.push('mutated-by-caller');
      const second = await settle(a, await c.valid());
      assert.deepEqual(second.user?.groups.includes('mutated-by-caller'), false);
      assert.equal(second.user?.username, c.expectedUser.username);
    });
    it('wrong credentials of its kind: a 401 StatusError', async () => {
      const a = await c.make();
      const bad = await c.invalid();
      assert.ok(bad.length > 0);
      for (const req of bad) {
        const r = await settle(a, req);
        assert.equal(r.user, undefined);
        assert.ok(isStatusError(r.error) && r.error.code === 401, `expected a 401, got ${String(r.error)}`);
      }
    });
  });
}
