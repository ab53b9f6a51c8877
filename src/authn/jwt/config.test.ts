import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { ensureServingCerts } from '../../server/tls.js';
import { AuthenticationConfigError, loadAuthenticationConfiguration, parseAuthenticationConfiguration } from './config.js';
import { oidcFlagsConfig, jwtConfigurationOf } from './options.js';

const API = 'apiserver.config.orch.io/v1beta1';
const SA_ISSUER = 'https://orch-apiserver.orch-system.svc';
const ctx = { disallowedIssuers: [SA_ISSUER] };

type Jwt = Record<string, any>;
const jwt = (over: (j: Jwt) => void = () => undefined): Jwt => {
  const j: Jwt = { issuer: { url: 'https://issuer.example', audiences: ['orch'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } };
  over(j);
  return j;
};
const doc = (...jwts: Jwt[]) => JSON.stringify({ apiVersion: API, kind: 'AuthenticationConfiguration', jwt: jwts });
const errorOf = (text: string): string => {
  try {
    parseAuthenticationConfiguration(text, ctx);
  } catch (e) {
    assert.ok(e instanceof AuthenticationConfigError, String(e));
    return e.message;
  }
  return 'no error';
};

let caPem = '';
let dir = '';
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orch-authn-config-'));
  caPem = (await ensureServingCerts(dir, { hosts: [] })).caCertPem;
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('AuthenticationConfiguration (spec 5.5 file table, 2.12)', () => {
  it('spec 5.5: a full entry is accepted in YAML, every row read', () => {
    const text = stringify({
      apiVersion: API,
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: { url: 'https://a.example/path', discoveryURL: 'https://disco.example/a/.well-known/openid-configuration', certificateAuthority: caPem, audiences: ['x', 'z'], audienceMatchPolicy: 'MatchAny' },
          claimValidationRules: [{ claim: 'hd', requiredValue: 'example.com' }, { expression: "claims.tier == 'gold'", message: 'gold only' }],
          claimMappings: {
            username: { expression: "claims.email_verified ? claims.email : ''" },
            groups: { claim: 'groups', prefix: 'oidc:' },
            uid: { claim: 'sub' },
            extra: [{ key: 'example.com/team', valueExpression: 'claims.team' }],
          },
          userValidationRules: [{ expression: "!user.username.startsWith('system:')", message: 'no system users' }],
        },
        jwt((j) => (j.issuer.url = 'https://b.example')),
      ],
    });
    const [a, b] = parseAuthenticationConfiguration(text, ctx);
    assert.equal(a?.issuer.url, 'https://a.example/path');
    assert.equal(a?.issuer.discoveryURL, 'https://disco.example/a/.well-known/openid-configuration');
    assert.equal(a?.issuer.certificateAuthority, caPem);
    assert.deepEqual(a?.issuer.audiences, ['x', 'z']);
    assert.equal(a?.claimValidationRules.length, 2);
    assert.deepEqual(a?.claimValidationRules[0], { claim: 'hd', requiredValue: 'example.com' });
    assert.ok(a && 'expression' in a.username);
    assert.deepEqual(a?.groups, { claim: 'groups', prefix: 'oidc:' });
    assert.deepEqual(a?.uid, { claim: 'sub' });
    assert.equal(a?.extra[0]?.key, 'example.com/team');
    assert.equal(a?.userValidationRules[0]?.message, 'no system users');
    assert.equal(b?.issuer.url, 'https://b.example');
  });

  it('spec 5.5: an empty jwt list is allowed (JWT authentication off)', () => {
    assert.deepEqual(parseAuthenticationConfiguration(`apiVersion: ${API}\nkind: AuthenticationConfiguration\n`, ctx), []);
  });

  // Each row: what is changed, and the error that must name the field and the rule.
  const table: [string, string, RegExp][] = [
    ['kind', JSON.stringify({ apiVersion: API, kind: 'Other' }), /^kind: Unsupported value: "Other"/],
    ['apiVersion', JSON.stringify({ apiVersion: 'apiserver.config.orch.io/v9', kind: 'AuthenticationConfiguration' }), /^apiVersion: Unsupported value: "apiserver.config.orch.io\/v9"/],
    ['unknown top-level field', JSON.stringify({ apiVersion: API, kind: 'AuthenticationConfiguration', jwts: [] }), /^jwts: unknown field$/],
    ['anonymous is refused', JSON.stringify({ apiVersion: API, kind: 'AuthenticationConfiguration', anonymous: { enabled: true } }), /^anonymous: Forbidden: /],
    ['not YAML', 'a: [', /^not valid YAML or JSON/],
    ['at most 64 authenticators', doc(...Array.from({ length: 65 }, (_, i) => jwt((j) => (j.issuer.url = `https://i${i}.example`)))), /^jwt: Too many: 65: must have at most 64 items$/],
    ['issuer.url required', doc(jwt((j) => delete j.issuer.url)), /^jwt\[0\]\.issuer\.url: Required value$/],
    ['issuer.url https', doc(jwt((j) => (j.issuer.url = 'http://issuer.example'))), /^jwt\[0\]\.issuer\.url: Invalid value: "http:\/\/issuer.example": URL scheme must be https$/],
    ['issuer.url no query', doc(jwt((j) => (j.issuer.url = 'https://i.example/?a=b'))), /issuer\.url: .*URL must not contain a query/],
    ['issuer.url no fragment', doc(jwt((j) => (j.issuer.url = 'https://i.example/#f'))), /issuer\.url: .*URL must not contain a fragment/],
    ['issuer.url no user info', doc(jwt((j) => (j.issuer.url = 'https://u:p@i.example'))), /issuer\.url: .*must not contain a username or password/],
    ['issuer.url unique', doc(jwt(), jwt()), /^jwt\[1\]\.issuer\.url: Duplicate value: "https:\/\/issuer.example"$/],
    ['issuer.url not the service-account issuer', doc(jwt((j) => (j.issuer.url = SA_ISSUER))), /issuer\.url: Invalid value: .*URL must not overlap with disallowed issuers/],
    ['discoveryURL differs from url', doc(jwt((j) => (j.issuer.discoveryURL = 'https://issuer.example/'))), /issuer\.discoveryURL: Invalid value: .*discoveryURL must be different from URL/],
    ['discoveryURL https', doc(jwt((j) => (j.issuer.discoveryURL = 'http://d.example/x'))), /issuer\.discoveryURL: .*URL scheme must be https/],
    ['discoveryURL unique', doc(jwt((j) => (j.issuer.discoveryURL = 'https://d.example/x')), jwt((j) => ((j.issuer.url = 'https://o.example'), (j.issuer.discoveryURL = 'https://d.example/x')))), /^jwt\[1\]\.issuer\.discoveryURL: Duplicate value/],
    ['certificateAuthority PEM', doc(jwt((j) => (j.issuer.certificateAuthority = 'not a pem'))), /^jwt\[0\]\.issuer\.certificateAuthority: Invalid value: "<omitted>": /],
    ['audiences required', doc(jwt((j) => delete j.issuer.audiences)), /^jwt\[0\]\.issuer\.audiences: Required value/],
    ['audiences non-empty', doc(jwt((j) => (j.issuer.audiences = []))), /^jwt\[0\]\.issuer\.audiences: Required value/],
    ['audience not empty', doc(jwt((j) => (j.issuer.audiences = ['']))), /^jwt\[0\]\.issuer\.audiences\[0\]: Required value$/],
    ['audiences unique', doc(jwt((j) => ((j.issuer.audiences = ['a', 'a']), (j.issuer.audienceMatchPolicy = 'MatchAny')))), /audiences\[1\]: Duplicate value: "a"/],
    ['several audiences need MatchAny', doc(jwt((j) => (j.issuer.audiences = ['a', 'b']))), /audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences/],
    ['one audience: empty or MatchAny', doc(jwt((j) => (j.issuer.audienceMatchPolicy = 'MatchAll'))), /audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny/],
    ['claim rule: both forms', doc(jwt((j) => (j.claimValidationRules = [{ claim: 'a', expression: 'true' }]))), /claimValidationRules\[0\]: Invalid value: "a": claim and expression can't both be set/],
    ['claim rule: neither form', doc(jwt((j) => (j.claimValidationRules = [{ message: 'm' }]))), /claimValidationRules\[0\]: Required value: claim or expression is required/],
    ['claim rule: message only with expression', doc(jwt((j) => (j.claimValidationRules = [{ claim: 'a', requiredValue: 'b', message: 'm' }]))), /claimValidationRules\[0\]\.message: Invalid value: "m": message can't be set when claim is set/],
    ['claim rule: requiredValue only with claim', doc(jwt((j) => (j.claimValidationRules = [{ expression: 'true', requiredValue: 'b' }]))), /claimValidationRules\[0\]\.requiredValue: Invalid value: "b"/],
    ['claim rule: claims unique', doc(jwt((j) => (j.claimValidationRules = [{ claim: 'a' }, { claim: 'a' }]))), /claimValidationRules\[1\]\.claim: Duplicate value: "a"/],
    ['claim rule: expressions unique', doc(jwt((j) => (j.claimValidationRules = [{ expression: 'true' }, { expression: 'true' }]))), /claimValidationRules\[1\]\.expression: Duplicate value/],
    ['claim rule: CEL compiles', doc(jwt((j) => (j.claimValidationRules = [{ expression: 'claims.a ==' }]))), /^jwt\[0\]\.claimValidationRules\[0\]\.expression: Invalid value: "claims.a ==": compilation failed: /],
    ['claim rule: CEL is boolean', doc(jwt((j) => (j.claimValidationRules = [{ expression: "'yes'" }]))), /claimValidationRules\[0\]\.expression: .*must evaluate to bool, not string/],
    ['claim rule: only claims is declared', doc(jwt((j) => (j.claimValidationRules = [{ expression: "user.username == 'a'" }]))), /claimValidationRules\[0\]\.expression: .*compilation failed: .*user/],
    ['username required', doc(jwt((j) => (j.claimMappings = {}))), /^jwt\[0\]\.claimMappings\.username: Required value: claim or expression is required$/],
    ['claimMappings required', doc(jwt((j) => delete j.claimMappings)), /^jwt\[0\]\.claimMappings\.username: Required value/],
    ['username: claim or expression, not both', doc(jwt((j) => (j.claimMappings.username = { claim: 'sub', prefix: '', expression: 'claims.sub' }))), /claimMappings\.username: Invalid value: "": claim and expression can't both be set/],
    ['username: prefix required with a claim', doc(jwt((j) => (j.claimMappings.username = { claim: 'sub' }))), /^jwt\[0\]\.claimMappings\.username\.prefix: Required value: required when claim is set/],
    ['username: no prefix with an expression', doc(jwt((j) => (j.claimMappings.username = { expression: 'claims.sub', prefix: 'p:' }))), /claimMappings\.username\.prefix: Invalid value: "p:": may not be specified when expression is set/],
    ['username: CEL compiles', doc(jwt((j) => (j.claimMappings.username = { expression: 'claims.sub +' }))), /^jwt\[0\]\.claimMappings\.username\.expression: Invalid value: "claims.sub \+": compilation failed/],
    ['username: email needs email_verified', doc(jwt((j) => (j.claimMappings.username = { expression: 'claims.email' }))), /^jwt\[0\]\.claimMappings\.username\.expression: Invalid value: "claims.email": claims.email_verified must be used/],
    ['groups: prefix required with a claim', doc(jwt((j) => (j.claimMappings.groups = { claim: 'groups' }))), /claimMappings\.groups\.prefix: Required value/],
    ['groups: claim or expression, not both', doc(jwt((j) => (j.claimMappings.groups = { claim: 'g', prefix: '', expression: 'claims.g' }))), /claimMappings\.groups: Invalid value: "": claim and expression can't both be set/],
    ['uid: claim or expression, not both', doc(jwt((j) => (j.claimMappings.uid = { claim: 'sub', expression: 'claims.sub' }))), /claimMappings\.uid: Invalid value: "": claim and expression can't both be set/],
    ['uid: CEL compiles', doc(jwt((j) => (j.claimMappings.uid = { expression: '(' }))), /claimMappings\.uid\.expression: Invalid value: "\(": compilation failed/],
    ['extra: key domain-prefixed', doc(jwt((j) => (j.claimMappings.extra = [{ key: 'team', valueExpression: 'claims.t' }]))), /claimMappings\.extra\[0\]\.key: Invalid value: "team": must be a domain-prefixed path/],
    ['extra: key lowercase', doc(jwt((j) => (j.claimMappings.extra = [{ key: 'example.com/Team', valueExpression: 'claims.t' }]))), /claimMappings\.extra\[0\]\.key: Invalid value: "example.com\/Team": key must be lowercase/],
    ['extra: key host is a DNS subdomain', doc(jwt((j) => (j.claimMappings.extra = [{ key: 'Bad_Host/x', valueExpression: 'claims.t' }]))), /extra\[0\]\.key: Invalid value: "Bad_Host": a lowercase RFC 1123 subdomain/],
    ['extra: key outside the server domain', doc(jwt((j) => (j.claimMappings.extra = [{ key: 'authentication.orch.io/x', valueExpression: 'claims.t' }]))), /extra\[0\]\.key: .*orch.io and its subdomains are reserved/],
    ['extra: keys unique', doc(jwt((j) => (j.claimMappings.extra = [{ key: 'a.io/x', valueExpression: 'claims.t' }, { key: 'a.io/x', valueExpression: 'claims.u' }]))), /extra\[1\]\.key: Duplicate value: "a.io\/x"/],
    ['extra: valueExpression required', doc(jwt((j) => (j.claimMappings.extra = [{ key: 'a.io/x' }]))), /extra\[0\]\.valueExpression: Required value: valueExpression is required/],
    ['extra: CEL compiles', doc(jwt((j) => (j.claimMappings.extra = [{ key: 'a.io/x', valueExpression: 'claims.' }]))), /extra\[0\]\.valueExpression: Invalid value: "claims.": compilation failed/],
    ['user rule: expression required', doc(jwt((j) => (j.userValidationRules = [{ message: 'm' }]))), /userValidationRules\[0\]\.expression: Required value: expression is required/],
    ['user rule: unique', doc(jwt((j) => (j.userValidationRules = [{ expression: 'true' }, { expression: 'true' }]))), /userValidationRules\[1\]\.expression: Duplicate value/],
    ['user rule: sees user, not claims', doc(jwt((j) => (j.userValidationRules = [{ expression: "claims.sub == 'a'" }]))), /userValidationRules\[0\]\.expression: .*compilation failed: .*claims/],
    ['user rule: boolean', doc(jwt((j) => (j.userValidationRules = [{ expression: 'user.username' }]))), /no error/],
    ['unknown nested field', doc(jwt((j) => (j.issuer.caBundle = 'x'))), /^jwt\[0\]\.issuer\.caBundle: unknown field$/],
    ['wrong type', doc(jwt((j) => (j.issuer.audiences = 'orch'))), /^jwt\[0\]\.issuer\.audiences: must be a list$/],
  ];
  for (const [row, text, want] of table) {
    it(`spec 5.5: ${row}`, () => assert.match(errorOf(text), want));
  }

  it('spec 5.5: email_verified may be checked by a claim validation rule or an extra mapping instead', () => {
    const byRule = jwt((j) => ((j.claimMappings.username = { expression: 'claims.email' }), (j.claimValidationRules = [{ expression: 'claims.email_verified == true' }])));
    const byExtra = jwt((j) => ((j.claimMappings.username = { expression: 'claims.email' }), (j.claimMappings.extra = [{ key: 'a.io/v', valueExpression: 'string(claims.email_verified)' }])));
    const indexOnly = jwt((j) => (j.claimMappings.username = { expression: "claims['email']" }));
    assert.equal(errorOf(doc(byRule)), 'no error');
    assert.equal(errorOf(doc(byExtra)), 'no error');
    assert.equal(errorOf(doc(indexOnly)), 'no error', 'reference behaviour: only a selection (claims.email) counts as using the claim');
  });

  it('every problem of a file is reported in one error naming the file', () => {
    const file = join(dir, 'authn.yaml');
    writeFileSync(file, doc(jwt((j) => ((j.issuer.url = 'http://x.example'), (j.claimMappings.username = { claim: 'sub' })))));
    assert.throws(
      () => loadAuthenticationConfiguration(file, ctx),
      (e: Error) =>
        e.message.startsWith(`--authentication-config ${file}: `) &&
        e.message.includes('jwt[0].issuer.url: Invalid value: "http://x.example": URL scheme must be https') &&
        e.message.includes('jwt[0].claimMappings.username.prefix: Required value'),
    );
    assert.throws(() => loadAuthenticationConfiguration(join(dir, 'missing.yaml'), ctx), /^Error: --authentication-config: cannot read .*missing.yaml/);
  });
});

describe('--oidc-* flags (spec 5.5 flag table)', () => {
  const base = { issuerURL: 'https://issuer.example', clientID: 'orch' };
  it('spec 5.5: defaults: claim sub, prefixed with the issuer URL and #, RS256, the client id as audience', () => {
    const c = oidcFlagsConfig(base, []);
    assert.deepEqual(c.username, { claim: 'sub', prefix: 'https://issuer.example#' });
    assert.deepEqual(c.signingAlgorithms, ['RS256']);
    assert.deepEqual(c.issuer.audiences, ['orch']);
    assert.equal(c.groups, undefined);
  });
  it('spec 5.5: email is not prefixed; "-" disables the prefix; an explicit prefix is used as given', () => {
    assert.deepEqual(oidcFlagsConfig({ ...base, usernameClaim: 'email' }, []).username, { claim: 'email', prefix: '' });
    assert.deepEqual(oidcFlagsConfig({ ...base, usernamePrefix: '-' }, []).username, { claim: 'sub', prefix: '' });
    assert.deepEqual(oidcFlagsConfig({ ...base, usernamePrefix: '' }, []).username, { claim: 'sub', prefix: 'https://issuer.example#' }, 'reference behaviour: empty is unset');
    assert.deepEqual(oidcFlagsConfig({ ...base, usernameClaim: 'email', usernamePrefix: 'oidc:' }, []).username, { claim: 'email', prefix: 'oidc:' });
  });
  it('spec 5.5: groups claim and prefix, required claims, CA file, signing algorithms', () => {
    const caFile = join(dir, 'ca.crt');
    writeFileSync(caFile, caPem);
    const c = oidcFlagsConfig({ ...base, groupsClaim: 'groups', groupsPrefix: 'oidc:', requiredClaims: { hd: 'example.com' }, caFile, signingAlgs: ['ES256', 'PS512'] }, []);
    assert.deepEqual(c.groups, { claim: 'groups', prefix: 'oidc:' });
    assert.deepEqual(c.claimValidationRules, [{ claim: 'hd', requiredValue: 'example.com' }]);
    assert.equal(c.issuer.certificateAuthority, caPem);
    assert.deepEqual(c.signingAlgorithms, ['ES256', 'PS512']);
  });
  const bad: [string, Parameters<typeof oidcFlagsConfig>[0], RegExp][] = [
    ['issuer without client id', { issuerURL: 'https://i.example' }, /^Error: --oidc-client-id: required/],
    ['client id without issuer', { clientID: 'x' }, /^Error: --oidc-issuer-url: required/],
    ['http issuer', { ...base, issuerURL: 'http://i.example' }, /^Error: --oidc-issuer-url: Invalid value: "http:\/\/i.example": URL scheme must be https/],
    ['unknown algorithm', { ...base, signingAlgs: ['HS256'] }, /^Error: --oidc-signing-algs: Invalid value: "HS256": unsupported signing algorithm/],
    ['none is never an algorithm', { ...base, signingAlgs: ['none'] }, /--oidc-signing-algs: Invalid value: "none"/],
    ['groups prefix without claim', { ...base, groupsPrefix: 'p' }, /^Error: --oidc-groups-prefix: .*requires --oidc-groups-claim/],
    ['unreadable CA file', { ...base, caFile: '/nonexistent/ca.crt' }, /^Error: --oidc-ca-file: Invalid value: "\/nonexistent\/ca.crt": cannot read/],
  ];
  for (const [row, o, want] of bad) it(`spec 5.5: ${row} is a start-up error naming the flag`, () => assert.throws(() => oidcFlagsConfig(o, []), want));

  it('spec 5.5: the issuer may not be the service-account issuer', () => {
    assert.throws(() => oidcFlagsConfig({ ...base, issuerURL: SA_ISSUER }, [SA_ISSUER]), /^Error: --oidc-issuer-url: Invalid value: .*disallowed issuers/);
  });
  it('spec 5.5: --authentication-config with any --oidc-* flag is an error naming both', () => {
    assert.throws(
      () => jwtConfigurationOf({ oidc: { groupsClaim: 'g' }, authenticationConfigFile: '/x.yaml', serviceAccountIssuers: [] }),
      /^Error: --authentication-config and --oidc-groups-claim: /,
    );
    assert.deepEqual(jwtConfigurationOf({ serviceAccountIssuers: [] }).configs, []);
  });
});
