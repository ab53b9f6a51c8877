/**
 * The server's JWT settings (spec 5.5): the `--oidc-*` flags, which describe one issuer, or an
 * `--authentication-config` file, never both. Both become the same JwtAuthenticatorConfig list; every
 * mistake is a start-up error naming the flag or the file.
 */
import { readFileSync } from 'node:fs';
import { AuthenticationConfigError, checkCertificateAuthority, checkIssuerUrl, loadAuthenticationConfiguration } from './config.js';
import { JwtAuthentication, type JwtAuthenticationOptions } from './authentication.js';
import { FieldErrors } from './field-errors.js';
import { isSigningAlgorithm, SIGNING_ALGORITHMS } from './jws.js';
import type { JwtAuthenticatorConfig } from './types.js';

/** The `--oidc-*` flags. */
export interface OidcFlagOptions {
  issuerURL?: string;
  clientID?: string;
  /** Default `sub`. */
  usernameClaim?: string;
  /** `-` turns prefixing off; unset means `<issuer URL>#` unless the claim is `email`. */
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  requiredClaims?: Record<string, string>;
  caFile?: string;
  /** Default `RS256`. */
  signingAlgs?: string[];
}

export interface JwtSettings {
  oidc?: OidcFlagOptions;
  authenticationConfigFile?: string;
  /** `--service-account-issuer` values: a JWT issuer may not claim them. */
  serviceAccountIssuers: readonly string[];
}

const OIDC_FLAGS: Record<keyof OidcFlagOptions, string> = {
  issuerURL: '--oidc-issuer-url',
  clientID: '--oidc-client-id',
  usernameClaim: '--oidc-username-claim',
  usernamePrefix: '--oidc-username-prefix',
  groupsClaim: '--oidc-groups-claim',
  groupsPrefix: '--oidc-groups-prefix',
  requiredClaims: '--oidc-required-claim',
  caFile: '--oidc-ca-file',
  signingAlgs: '--oidc-signing-algs',
};

/** The configured JWT authenticators (none when JWT authentication is off); throws naming the flag or file. */
export function jwtConfigurationOf(s: JwtSettings): { configs: JwtAuthenticatorConfig[]; text?: string } {
  const given = Object.entries(s.oidc ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k]) => OIDC_FLAGS[k as keyof OidcFlagOptions]);
  if (s.authenticationConfigFile !== undefined) {
    if (given.length > 0) throw new Error(`--authentication-config and ${given.join(', ')}: the OIDC flags cannot be combined with an authentication configuration file; move the issuer into the file`);
    let text = '';
    const configs = loadAuthenticationConfiguration(s.authenticationConfigFile, { disallowedIssuers: s.serviceAccountIssuers }, (p) => (text = readFileSync(p, 'utf8')));
    return { configs, text };
  }
  if (given.length === 0) return { configs: [] };
  return { configs: [oidcFlagsConfig(s.oidc ?? {}, s.serviceAccountIssuers)] };
}

/** The flags as one authenticator, with the reference's defaults. */
export function oidcFlagsConfig(o: OidcFlagOptions, disallowedIssuers: readonly string[]): JwtAuthenticatorConfig {
  if (!o.issuerURL || !o.clientID) {
    const missing = !o.issuerURL ? '--oidc-issuer-url' : '--oidc-client-id';
    throw new Error(`${missing}: required with the other --oidc-* flags (--oidc-issuer-url and --oidc-client-id must be given together)`);
  }
  const errs = new FieldErrors();
  checkIssuerUrl(o.issuerURL, '--oidc-issuer-url', disallowedIssuers, errs);
  const usernameClaim = o.usernameClaim ?? 'sub';
  if (usernameClaim === '') errs.required('--oidc-username-claim');
  if (o.groupsPrefix !== undefined && !o.groupsClaim) errs.invalid('--oidc-groups-prefix', o.groupsPrefix, 'requires --oidc-groups-claim');
  if (o.groupsClaim === '') errs.required('--oidc-groups-claim');
  const algs = o.signingAlgs ?? ['RS256'];
  if (algs.length === 0) errs.required('--oidc-signing-algs');
  for (const alg of algs) {
    if (!isSigningAlgorithm(alg)) errs.invalid('--oidc-signing-algs', alg, `unsupported signing algorithm (supported: ${SIGNING_ALGORITHMS.join(', ')})`);
  }
  const rules = Object.entries(o.requiredClaims ?? {}).map(([claim, requiredValue]) => {
    if (claim === '') errs.required('--oidc-required-claim', 'the claim name (before =) is empty');
    return { claim, requiredValue };
  });
  let ca: string | undefined;
  if (o.caFile !== undefined) {
    try {
      ca = readFileSync(o.caFile, 'utf8');
      checkCertificateAuthority(ca, `--oidc-ca-file ${o.caFile}`, errs);
    } catch (e) {
      errs.invalid('--oidc-ca-file', o.caFile, `cannot read: ${(e as Error).message}`);
    }
  }
  if (errs.list.length > 0) throw new Error(errs.list.join('; '));
  // The reference's legacy default: usernames from claims other than email are namespaced by the issuer.
  // An empty --oidc-username-prefix counts as unset there too; only "-" turns prefixing off.
  const prefix = o.usernamePrefix === '-' ? '' : o.usernamePrefix || (usernameClaim === 'email' ? '' : `${o.issuerURL}#`);
  return {
    issuer: { url: o.issuerURL, audiences: [o.clientID], ...(ca !== undefined ? { certificateAuthority: ca } : {}) },
    claimValidationRules: rules,
    username: { claim: usernameClaim, prefix },
    ...(o.groupsClaim ? { groups: { claim: o.groupsClaim, prefix: o.groupsPrefix ?? '' } } : {}),
    extra: [],
    userValidationRules: [],
    signingAlgorithms: algs,
  };
}

/**
 * Starts JWT authentication for the settings, or undefined when none is configured. With a configuration
 * file, the file is followed for changes until `stop()`.
 */
export function startJwtAuthentication(s: JwtSettings, options: JwtAuthenticationOptions = {}): JwtAuthentication | undefined {
  const { configs, text } = jwtConfigurationOf(s);
  if (s.authenticationConfigFile === undefined && configs.length === 0) return undefined;
  const auth = new JwtAuthentication(configs, options);
  if (s.authenticationConfigFile !== undefined) auth.watchFile(s.authenticationConfigFile, text ?? '', { disallowedIssuers: s.serviceAccountIssuers });
  return auth;
}

export { AuthenticationConfigError };
