/**
 * `--authentication-config` (spec 5.5, 2.12): an `AuthenticationConfiguration` document in YAML or JSON
 * whose `jwt[]` entries become JWT authenticators. Every rule of the spec's table is checked here, and every
 * problem of the file is reported at once, each with its field path. CEL compilation comes in as a hook
 * from the authenticator, which owns the expression environments.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { AUTHENTICATION_CONFIG_GROUP, RESERVED_DOMAINS } from '../api/naming.js';
import { pemBlocks } from '../util/pem.js';
import type { AuthenticationHooks, ClaimMappingOf, ExpressionRuleOf, JwtAuthenticatorOf, JwtIssuer, RequiredClaimRule } from './authentication-types.js';
import { FieldErrors } from './field-errors.js';
import { readableVersions, toCurrentVersion, type VersionTable } from './versions.js';

export type * from './authentication-types.js';

export const AUTHENTICATION_CONFIGURATION_KIND = 'AuthenticationConfiguration';
/** Release 1.31 reads v1beta1 and v1alpha1, with the same fields. */
export const AUTHENTICATION_VERSION_TABLE: VersionTable = {
  current: `${AUTHENTICATION_CONFIG_GROUP}/v1beta1`,
  older: { [`${AUTHENTICATION_CONFIG_GROUP}/v1alpha1`]: null },
};
export const AUTHENTICATION_CONFIG_VERSIONS: readonly string[] = readableVersions(AUTHENTICATION_VERSION_TABLE);
export const MAX_JWT_AUTHENTICATORS = 64;
export const MATCH_ANY = 'MatchAny';

/** A configuration that cannot be used; the message lists every problem. */
export class AuthenticationConfigError extends Error {}

export interface ValidationContext {
  /** Issuers a JWT authenticator may not claim (the service-account issuers). */
  disallowedIssuers: readonly string[];
}

/** Reads and validates the file; the error names the flag and the file. */
export function loadAuthenticationDocument<E>(
  file: string,
  ctx: ValidationContext,
  hooks: AuthenticationHooks<E>,
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): JwtAuthenticatorOf<E>[] {
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    throw new AuthenticationConfigError(`--authentication-config: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return parseAuthenticationDocument(text, ctx, hooks);
  } catch (e) {
    if (e instanceof AuthenticationConfigError) throw new AuthenticationConfigError(`--authentication-config ${file}: ${e.message}`);
    throw e;
  }
}

/** The document's JWT authenticators, or an AuthenticationConfigError listing every problem (`; ` between them). */
export function parseAuthenticationDocument<E>(text: string, ctx: ValidationContext, hooks: AuthenticationHooks<E>): JwtAuthenticatorOf<E>[] {
  let doc: unknown;
  try {
    doc = toCurrentVersion(parseYaml(text, { version: '1.1', uniqueKeys: true, maxAliasCount: 100 }), AUTHENTICATION_VERSION_TABLE);
  } catch (e) {
    throw new AuthenticationConfigError(`not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  const errs = new FieldErrors();
  if (!isRecord(doc)) throw new AuthenticationConfigError(`the document must be an object (an ${AUTHENTICATION_CONFIGURATION_KIND})`);
  errs.unknownFields('', doc, ['apiVersion', 'kind', 'jwt', 'anonymous']);
  if (doc.kind !== AUTHENTICATION_CONFIGURATION_KIND) {
    errs.list.push(`kind: Unsupported value: ${JSON.stringify(doc.kind ?? '')}: supported values: "${AUTHENTICATION_CONFIGURATION_KIND}"`);
  }
  if (typeof doc.apiVersion !== 'string' || !AUTHENTICATION_CONFIG_VERSIONS.includes(doc.apiVersion)) {
    errs.list.push(`apiVersion: Unsupported value: ${JSON.stringify(doc.apiVersion ?? '')}: supported values: ${AUTHENTICATION_CONFIG_VERSIONS.map((v) => `"${v}"`).join(', ')}`);
  }
  // The reference gates this (alpha in 1.31) behind a feature this server does not have.
  if (doc.anonymous !== undefined) errs.forbidden('anonymous', 'configuring anonymous authentication in this file is not supported; use --anonymous-auth');
  const out = validateJwtList(doc.jwt ?? [], ctx, hooks, errs);
  if (errs.list.length > 0) throw new AuthenticationConfigError(errs.list.join('; '));
  return out;
}

function validateJwtList<E>(raw: unknown, ctx: ValidationContext, h: AuthenticationHooks<E>, errs: FieldErrors): JwtAuthenticatorOf<E>[] {
  if (!Array.isArray(raw)) {
    errs.type('jwt', 'a list');
    return [];
  }
  if (raw.length > MAX_JWT_AUTHENTICATORS) {
    errs.tooMany('jwt', raw.length, MAX_JWT_AUTHENTICATORS);
    return [];
  }
  const out: JwtAuthenticatorOf<E>[] = [];
  const issuers = new Set<string>();
  const discoveryURLs = new Set<string>();
  raw.forEach((entry, i) => {
    const at = `jwt[${i}]`;
    const a = validateJwtAuthenticator(entry, at, ctx, h, errs);
    if (!a) return;
    if (issuers.has(a.issuer.url)) errs.duplicate(`${at}.issuer.url`, a.issuer.url);
    issuers.add(a.issuer.url);
    if (a.issuer.discoveryURL !== undefined) {
      if (discoveryURLs.has(a.issuer.discoveryURL)) errs.duplicate(`${at}.issuer.discoveryURL`, a.issuer.discoveryURL);
      discoveryURLs.add(a.issuer.discoveryURL);
    }
    out.push(a);
  });
  return out;
}

/** Reads optional string fields, recording a type error for anything else. */
function strings(obj: Record<string, unknown>, at: string, errs: FieldErrors, ...keys: string[]): (string | undefined)[] {
  return keys.map((k) => {
    const v = obj[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      errs.type(`${at}.${k}`, 'a string');
      return undefined;
    }
    return v;
  });
}

function record(v: unknown, at: string, errs: FieldErrors, known: readonly string[]): Record<string, unknown> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) {
    errs.type(at, 'an object');
    return undefined;
  }
  errs.unknownFields(at, v, known);
  return v;
}

function list(v: unknown, at: string, errs: FieldErrors): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    errs.type(at, 'a list');
    return [];
  }
  return v;
}

function validateJwtAuthenticator<E>(raw: unknown, at: string, ctx: ValidationContext, h: AuthenticationHooks<E>, errs: FieldErrors): JwtAuthenticatorOf<E> | undefined {
  const a = record(raw, at, errs, ['issuer', 'claimValidationRules', 'claimMappings', 'userValidationRules']);
  if (!a) {
    if (raw === undefined || raw === null) errs.required(at);
    return undefined;
  }
  const before = errs.list.length;
  const issuer = validateIssuer(a.issuer, `${at}.issuer`, ctx, errs);
  const usesEmailVerified = { value: false };
  const claimValidationRules = validateClaimRules(a.claimValidationRules, `${at}.claimValidationRules`, h, errs, usesEmailVerified);
  const mappings = validateClaimMappings(a.claimMappings, `${at}.claimMappings`, h, errs, usesEmailVerified);
  const userValidationRules = validateUserRules(a.userValidationRules, `${at}.userValidationRules`, h, errs);
  if (errs.list.length > before || !issuer || !mappings) return undefined;
  // A file-configured issuer may sign with any asymmetric algorithm its keys allow, as in the reference.
  return { issuer, claimValidationRules, ...mappings, userValidationRules, signingAlgorithms: h.signingAlgorithms };
}

function validateIssuer(raw: unknown, at: string, ctx: ValidationContext, errs: FieldErrors): JwtIssuer | undefined {
  const o = record(raw, at, errs, ['url', 'discoveryURL', 'certificateAuthority', 'audiences', 'audienceMatchPolicy']);
  if (!o) {
    errs.required(`${at}.url`);
    errs.required(`${at}.audiences`, `at least one ${at}.audiences is required`);
    return undefined;
  }
  const [url, discoveryURL, ca, policy] = strings(o, at, errs, 'url', 'discoveryURL', 'certificateAuthority', 'audienceMatchPolicy');
  if (!url) errs.required(`${at}.url`);
  else checkIssuerUrl(url, `${at}.url`, ctx.disallowedIssuers, errs);
  if (discoveryURL) {
    if (url && url.replace(/\/+$/, '') === discoveryURL.replace(/\/+$/, '')) errs.invalid(`${at}.discoveryURL`, discoveryURL, 'discoveryURL must be different from URL');
    checkIssuerUrl(discoveryURL, `${at}.discoveryURL`, [], errs);
  }
  const audiences = checkAudiences(o.audiences, policy, at, errs);
  if (ca) checkCertificateAuthority(ca, `${at}.certificateAuthority`, errs);
  if (!url || !audiences) return undefined;
  return { url, audiences, ...(discoveryURL ? { discoveryURL } : {}), ...(ca ? { certificateAuthority: ca } : {}) };
}

/** The reference's URL rules for an issuer or discovery URL; `path` may be a flag name. */
export function checkIssuerUrl(value: string, path: string, disallowed: readonly string[], errs: FieldErrors): void {
  if (disallowed.includes(value)) errs.invalid(path, value, `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]`);
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    errs.invalid(path, value, 'not a valid URL');
    return;
  }
  if (u.protocol !== 'https:') errs.invalid(path, value, 'URL scheme must be https');
  if (u.username !== '' || u.password !== '') errs.invalid(path, value, 'URL must not contain a username or password');
  if (u.search !== '' || value.includes('?')) errs.invalid(path, value, 'URL must not contain a query');
  if (u.hash !== '' || value.includes('#')) errs.invalid(path, value, 'URL must not contain a fragment');
}

function checkAudiences(raw: unknown, policy: string | undefined, at: string, errs: FieldErrors): string[] | undefined {
  const path = `${at}.audiences`;
  const given = list(raw, path, errs);
  if (given.length === 0) {
    if (raw === undefined || Array.isArray(raw)) errs.required(path, `at least one ${path} is required`);
    return undefined;
  }
  const seen = new Set<string>();
  let ok = true;
  given.forEach((aud, i) => {
    if (typeof aud !== 'string') {
      errs.type(`${path}[${i}]`, 'a string');
      ok = false;
      return;
    }
    if (aud === '') errs.required(`${path}[${i}]`);
    if (seen.has(aud)) errs.duplicate(`${path}[${i}]`, aud);
    seen.add(aud);
  });
  if (given.length > 1 && policy !== MATCH_ANY) errs.invalid(`${at}.audienceMatchPolicy`, policy ?? '', 'audienceMatchPolicy must be MatchAny for multiple audiences');
  if (given.length === 1 && policy && policy !== MATCH_ANY) errs.invalid(`${at}.audienceMatchPolicy`, policy, 'audienceMatchPolicy must be empty or MatchAny for single audience');
  return ok ? (given as string[]) : undefined;
}

/** A PEM bundle with at least one readable certificate. */
export function checkCertificateAuthority(pem: string, path: string, errs: FieldErrors): void {
  const certs = pemBlocks(pem).filter((b) => b.label === 'CERTIFICATE');
  try {
    if (certs.length === 0) throw new Error('data does not contain any valid RSA or ECDSA certificates');
    for (const c of certs) new X509Certificate(c.text);
  } catch (e) {
    errs.invalid(path, '<omitted>', (e as Error).message);
  }
}

function validateClaimRules<E>(
  raw: unknown,
  at: string,
  h: AuthenticationHooks<E>,
  errs: FieldErrors,
  usesEmailVerified: { value: boolean },
): (RequiredClaimRule | ExpressionRuleOf<E>)[] {
  const out: (RequiredClaimRule | ExpressionRuleOf<E>)[] = [];
  const claims = new Set<string>();
  const expressions = new Set<string>();
  list(raw, at, errs).forEach((r, i) => {
    const path = `${at}[${i}]`;
    const o = record(r, path, errs, ['claim', 'requiredValue', 'expression', 'message']);
    if (!o) return;
    const [claim, requiredValue, expression, message] = strings(o, path, errs, 'claim', 'requiredValue', 'expression', 'message');
    if (claim && expression) errs.invalid(path, claim, "claim and expression can't both be set");
    else if (!claim && !expression) errs.required(path, 'claim or expression is required');
    else if (claim) {
      if (message) errs.invalid(`${path}.message`, message, "message can't be set when claim is set");
      if (claims.has(claim)) errs.duplicate(`${path}.claim`, claim);
      claims.add(claim);
      out.push({ claim, requiredValue: requiredValue ?? '' });
    } else if (expression) {
      if (requiredValue) errs.invalid(`${path}.requiredValue`, requiredValue, "requiredValue can't be set when expression is set");
      if (expressions.has(expression)) return errs.duplicate(`${path}.expression`, expression);
      expressions.add(expression);
      const compiled = h.compileExpression('claims', expression, 'bool', `${path}.expression`, errs);
      if (compiled) out.push({ expression: compiled, message: message ?? '' });
      if (h.selectsClaim(expression, 'email_verified')) usesEmailVerified.value = true;
    }
  });
  return out;
}

type Mappings<E> = Pick<JwtAuthenticatorOf<E>, 'username' | 'groups' | 'uid' | 'extra'>;

function validateClaimMappings<E>(raw: unknown, at: string, h: AuthenticationHooks<E>, errs: FieldErrors, usesEmailVerified: { value: boolean }): Mappings<E> | undefined {
  const o = record(raw, at, errs, ['username', 'groups', 'uid', 'extra']);
  if (!o) {
    errs.required(`${at}.username`, 'claim or expression is required');
    return undefined;
  }
  const username = prefixedClaimOrExpression(o.username, `${at}.username`, true, h, errs);
  const groups = prefixedClaimOrExpression(o.groups, `${at}.groups`, false, h, errs);
  let uid: Mappings<E>['uid'];
  const u = record(o.uid, `${at}.uid`, errs, ['claim', 'expression']);
  if (u) {
    const [claim, expression] = strings(u, `${at}.uid`, errs, 'claim', 'expression');
    if (claim && expression) errs.invalid(`${at}.uid`, '', "claim and expression can't both be set");
    else if (claim) uid = { claim };
    else if (expression) {
      const compiled = h.compileExpression('claims', expression, 'any', `${at}.uid.expression`, errs);
      if (compiled) uid = { expression: compiled };
    }
  }
  const extra: { key: string; expression: E }[] = [];
  const keys = new Set<string>();
  list(o.extra, `${at}.extra`, errs).forEach((e, i) => {
    const path = `${at}.extra[${i}]`;
    const m = record(e, path, errs, ['key', 'valueExpression']);
    if (!m) return;
    const [key, valueExpression] = strings(m, path, errs, 'key', 'valueExpression');
    checkExtraKey(key ?? '', `${path}.key`, errs);
    if (key !== undefined && keys.has(key)) return errs.duplicate(`${path}.key`, key);
    if (key !== undefined) keys.add(key);
    if (!valueExpression) return errs.required(`${path}.valueExpression`, 'valueExpression is required');
    const compiled = h.compileExpression('claims', valueExpression, 'any', `${path}.valueExpression`, errs);
    if (compiled && key) extra.push({ key, expression: compiled });
    if (h.selectsClaim(valueExpression, 'email_verified')) usesEmailVerified.value = true;
  });
  // The reference's guard against trusting an unverified address: an email-based username must look at
  // email_verified somewhere (the username expression, a claim validation rule or an extra mapping).
  const usernameExpr = isRecord(o.username) && typeof o.username.expression === 'string' ? o.username.expression : undefined;
  if (usernameExpr && h.selectsClaim(usernameExpr, 'email')) {
    if (h.selectsClaim(usernameExpr, 'email_verified')) usesEmailVerified.value = true;
    if (!usesEmailVerified.value) {
      errs.invalid(
        `${at}.username.expression`,
        usernameExpr,
        'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
      );
    }
  }
  if (!username) return undefined;
  return { username, ...(groups ? { groups } : {}), ...(uid ? { uid } : {}), extra };
}

function prefixedClaimOrExpression<E>(raw: unknown, at: string, required: boolean, h: AuthenticationHooks<E>, errs: FieldErrors): ClaimMappingOf<E> | undefined {
  const o = record(raw, at, errs, ['claim', 'prefix', 'expression']);
  const [claim, prefix, expression] = o ? strings(o, at, errs, 'claim', 'prefix', 'expression') : [];
  if (claim && expression) errs.invalid(at, '', "claim and expression can't both be set");
  else if (!claim && !expression) {
    if (required) errs.required(at, 'claim or expression is required');
  } else if (expression) {
    if (prefix !== undefined) errs.invalid(`${at}.prefix`, prefix, 'may not be specified when expression is set');
    const compiled = h.compileExpression('claims', expression, 'any', `${at}.expression`, errs);
    return compiled ? { expression: compiled } : undefined;
  } else if (claim) {
    if (prefix !== undefined) return { claim, prefix };
    errs.required(`${at}.prefix`, 'required when claim is set. It can be set to an empty string to disable prefixing');
  }
  return undefined;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const HTTP_PATH = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/** Extra keys are domain-prefixed paths (`example.org/team`), lowercase, outside the server's own domain. */
export function checkExtraKey(key: string, path: string, errs: FieldErrors): void {
  if (key === '') return errs.required(path);
  const slash = key.indexOf('/');
  const host = slash < 0 ? key : key.slice(0, slash);
  const rest = slash < 0 ? '' : key.slice(slash + 1);
  if (slash <= 0 || rest === '') errs.invalid(path, key, 'must be a domain-prefixed path (such as "acme.io/foo")');
  else {
    if (host.length > 253 || !DNS_SUBDOMAIN.test(host)) {
      errs.invalid(path, host, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character");
    }
    if (!HTTP_PATH.test(rest)) errs.invalid(path, rest, "Invalid path: must match the regex [A-Za-z0-9/\\-._~%!$&'()*+,;=:]+");
  }
  if (key !== key.toLowerCase()) errs.invalid(path, key, 'key must be lowercase');
  const reserved = RESERVED_DOMAINS.find((d) => host === d || host.endsWith(`.${d}`));
  if (reserved !== undefined) errs.invalid(path, key, `${reserved} and its subdomains are reserved for the server's own use`);
}

function validateUserRules<E>(raw: unknown, at: string, h: AuthenticationHooks<E>, errs: FieldErrors): ExpressionRuleOf<E>[] {
  const out: ExpressionRuleOf<E>[] = [];
  const seen = new Set<string>();
  list(raw, at, errs).forEach((r, i) => {
    const path = `${at}[${i}]`;
    const o = record(r, path, errs, ['expression', 'message']);
    if (!o) return;
    const [expression, message] = strings(o, path, errs, 'expression', 'message');
    if (!expression) return errs.required(`${path}.expression`, 'expression is required');
    if (seen.has(expression)) return errs.duplicate(`${path}.expression`, expression);
    seen.add(expression);
    const compiled = h.compileExpression('user', expression, 'bool', `${path}.expression`, errs);
    if (compiled) out.push({ expression: compiled, message: message ?? '' });
  });
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
