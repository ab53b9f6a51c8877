import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkGatedFlags, FeatureGates, featureGatesUsage, gateNames, KNOWN_GATES, parseFeatureGateList, type GateName } from './index.js';

/** Matches the Error's own message (assert.throws with a RegExp would test "Error: ..." instead). */
function throwsMessage(fn: () => unknown, re: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.match((e as Error).message, re);
    return true;
  });
}

describe('feature gates (spec 3.3, 9.5 rules 9-10)', () => {
  it('spec 3.3: the 1.31 defaults: alpha off, beta on, deprecated KMSv1 off, GA on', () => {
    const gates = FeatureGates.defaults();
    const expected: Partial<Record<GateName, boolean>> = {
      WatchList: false,
      APIResponseCompression: true,
      ConsistentListFromCache: true,
      StorageVersionHash: true,
      StructuredAuthenticationConfiguration: true,
      StructuredAuthorizationConfiguration: true,
      KMSv1: false,
      KMSv2: true,
      ServerSideApply: true,
      WatchBookmark: true,
    };
    for (const [name, on] of Object.entries(expected)) assert.equal(gates.enabled(name as GateName), on, name);
    for (const s of gates.states()) {
      if (s.stage === 'ALPHA') assert.equal(s.default, false, `${s.name}: alpha gates default off`);
      if (s.stage === 'BETA') assert.equal(s.default, true, `${s.name}: beta gates of 1.31 here default on`);
      if (s.stage === 'GA') assert.deepEqual([s.default, s.locked], [true, true], `${s.name}: GA gates are locked on`);
    }
  });

  const accepted: { title: string; settings: Record<string, boolean>; check: Partial<Record<GateName, boolean>>; warnings: RegExp[] }[] = [
    { title: 'spec 3.3: an alpha gate may be enabled', settings: { WatchList: true }, check: { WatchList: true }, warnings: [] },
    { title: 'spec 3.3: a beta gate may be disabled', settings: { APIResponseCompression: false, ConsistentListFromCache: false }, check: { APIResponseCompression: false, ConsistentListFromCache: false }, warnings: [] },
    { title: 'spec 9.5 rule 10: a deprecated gate set explicitly works and warns', settings: { KMSv1: true }, check: { KMSv1: true }, warnings: [/KMSv1=true: the KMSv1 feature gate is deprecated/] },
    { title: 'reference behaviour: a GA gate set to its locked value is accepted with a warning', settings: { ServerSideApply: true }, check: { ServerSideApply: true }, warnings: [/ServerSideApply=true: .*GA and always on/] },
    { title: 'reference behaviour: AllAlpha=true enables every alpha gate', settings: { AllAlpha: true }, check: { WatchList: true, APIResponseCompression: true }, warnings: [] },
    { title: 'reference behaviour: AllBeta=false disables every beta gate but not GA ones', settings: { AllBeta: false }, check: { APIResponseCompression: false, StorageVersionHash: false, KMSv2: true, WatchList: false }, warnings: [] },
    { title: 'reference behaviour: an explicit setting wins over AllBeta whatever the order', settings: { StorageVersionHash: true, AllBeta: false }, check: { StorageVersionHash: true, ConsistentListFromCache: false }, warnings: [] },
  ];
  for (const c of accepted) {
    it(c.title, () => {
      const warnings: string[] = [];
      const gates = FeatureGates.resolve(c.settings, (m) => warnings.push(m));
      for (const [name, on] of Object.entries(c.check)) assert.equal(gates.enabled(name as GateName), on, name);
      assert.equal(warnings.length, c.warnings.length, warnings.join('\n'));
      c.warnings.forEach((re, i) => assert.match(warnings[i]!, re));
    });
  }

  const refused: { title: string; settings: Record<string, boolean>; message: RegExp }[] = [
    { title: 'spec 3.3: disabling a GA gate is an error naming it', settings: { ServerSideApply: false }, message: /^--feature-gates: cannot set feature gate ServerSideApply to false, feature is locked to true$/ },
    { title: 'spec 3.3: disabling another GA gate (WatchBookmark) too', settings: { WatchBookmark: false }, message: /feature gate WatchBookmark to false, feature is locked to true/ },
    { title: 'spec 3.3: an unknown gate is an error naming it', settings: { NoSuchGate: true }, message: /^--feature-gates: unrecognized feature gate: NoSuchGate$/ },
    { title: 'spec 3.3: a gate removed before 1.31 (APIPriorityAndFairness) is unrecognized, with the reason', settings: { APIPriorityAndFairness: true }, message: /unrecognized feature gate: APIPriorityAndFairness \(removed in release 1\.31/ },
    { title: 'spec 3.3: APISelfSubjectReview (removed in 1.30) is unrecognized', settings: { APISelfSubjectReview: true }, message: /unrecognized feature gate: APISelfSubjectReview \(removed in release 1\.30/ },
    { title: 'reference behaviour: a gate whose feature this server lacks is refused, not ignored', settings: { AuthorizeWithSelectors: false }, message: /unrecognized feature gate: AuthorizeWithSelectors \(.*does not implement/ },
    { title: 'reference behaviour: gate names are case-sensitive', settings: { watchlist: true }, message: /unrecognized feature gate: watchlist/ },
  ];
  for (const c of refused) it(c.title, () => throwsMessage(() => FeatureGates.resolve(c.settings), c.message));

  it('reference behaviour: two servers in one process may hold different gates', () => {
    const a = FeatureGates.resolve({ WatchList: true });
    const b = FeatureGates.resolve({});
    assert.deepEqual([a.enabled('WatchList'), b.enabled('WatchList')], [true, false]);
  });

  const parsed: { text: string; want?: Record<string, boolean>; error?: RegExp }[] = [
    { text: 'WatchList=true,APIResponseCompression=false', want: { WatchList: true, APIResponseCompression: false } },
    { text: ' WatchList = true , ', want: { WatchList: true } },
    { text: 'WatchList=1,KMSv1=T,StorageVersionHash=False', want: { WatchList: true, KMSv1: true, StorageVersionHash: false } },
    { text: 'WatchList=true,WatchList=false', want: { WatchList: false } },
    { text: 'WatchList', error: /^--feature-gates: missing bool value for WatchList/ },
    { text: 'WatchList=yes', error: /^--feature-gates: invalid value of WatchList=yes/ },
    { text: '=true', error: /invalid value of =true/ },
  ];
  for (const c of parsed) {
    it(`reference behaviour: --feature-gates=${JSON.stringify(c.text)} ${c.error ? 'is refused' : 'parses'}`, () => {
      if (c.error) throwsMessage(() => parseFeatureGateList(c.text), c.error);
      else assert.deepEqual(parseFeatureGateList(c.text), c.want);
    });
  }

  const gated: { title: string; settings: Record<string, boolean>; given: { authenticationConfig?: boolean; authorizationConfig?: boolean; tracingConfig?: boolean }; error?: RegExp }[] = [
    { title: '--authentication-config with the gate on (default) is allowed', settings: {}, given: { authenticationConfig: true, authorizationConfig: true } },
    { title: 'StructuredAuthenticationConfiguration=false refuses --authentication-config', settings: { StructuredAuthenticationConfiguration: false }, given: { authenticationConfig: true }, error: /^--authentication-config: .*StructuredAuthenticationConfiguration feature gate is disabled/ },
    { title: 'StructuredAuthorizationConfiguration=false refuses --authorization-config', settings: { StructuredAuthorizationConfiguration: false }, given: { authorizationConfig: true }, error: /^--authorization-config: .*StructuredAuthorizationConfiguration feature gate is disabled/ },
    { title: 'APIServerTracing=false refuses --tracing-config-file', settings: { APIServerTracing: false }, given: { tracingConfig: true }, error: /^--tracing-config-file: .*APIServerTracing feature gate is disabled/ },
    { title: 'a disabled gate without its flag is fine', settings: { StructuredAuthenticationConfiguration: false, StructuredAuthorizationConfiguration: false }, given: {} },
  ];
  for (const c of gated) {
    it(`spec 3.3: ${c.title}`, () => {
      const gates = FeatureGates.resolve(c.settings);
      if (c.error) throwsMessage(() => checkGatedFlags(gates, c.given), c.error);
      else assert.doesNotThrow(() => checkGatedFlags(gates, c.given));
    });
  }

  it('spec 9.5 rule 10: the help lists every gate with its stage and default', () => {
    const help = featureGatesUsage('  ');
    for (const name of gateNames()) assert.match(help, new RegExp(`^  ${name}=true\\|false \\(${KNOWN_GATES[name].stage}, `, 'm'));
    assert.match(help, /KMSv1=true\|false \(DEPRECATED, default false\)/);
    assert.match(help, /ServerSideApply=true\|false \(GA, always on\)/);
  });
});
