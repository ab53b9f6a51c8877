/**
 * The resolved feature gates of one server (spec 3.3, 9.5 rules 9-10). Built once at start-up from the
 * `--feature-gates` settings and never changed afterwards; two servers in one process may differ.
 */
import { GROUP_GATES, KNOWN_GATES, UNAVAILABLE_GATES, type GateName, type GateStage } from './known-gates.js';

const FLAG = '--feature-gates';

export interface GateState {
  name: GateName;
  stage: GateStage;
  default: boolean;
  locked: boolean;
  enabled: boolean;
}

export class FeatureGates {
  private constructor(private readonly values: Readonly<Record<GateName, boolean>>) {}

  /** Every gate at its 1.31 default. */
  static defaults(): FeatureGates {
    return FeatureGates.resolve({});
  }

  /**
   * Applies explicit settings over the defaults. An unknown or removed gate, or a locked gate set to the
   * other value, throws an Error naming the flag and the gate. `warn` receives one line per deprecated
   * or GA gate set explicitly (rule 10: such settings are reported, not silently taken).
   */
  static resolve(settings: Readonly<Record<string, boolean>>, warn: (msg: string) => void = () => undefined): FeatureGates {
    const values = Object.fromEntries(Object.entries(KNOWN_GATES).map(([n, g]) => [n, g.default])) as Record<GateName, boolean>;
    // Explicit settings win over AllAlpha/AllBeta whatever their order, as in the reference.
    for (const [group, stage] of Object.entries(GROUP_GATES)) {
      const v = settings[group];
      if (v === undefined) continue;
      for (const name of gateNames()) if (KNOWN_GATES[name].stage === stage && settings[name] === undefined) values[name] = v;
    }
    for (const [name, value] of Object.entries(settings)) {
      if (name in GROUP_GATES) continue;
      if (!isGateName(name)) {
        const why = UNAVAILABLE_GATES[name];
        throw new Error(`${FLAG}: unrecognized feature gate: ${name}${why ? ` (${why})` : ''}`);
      }
      const spec: { stage: GateStage; default: boolean; locked?: true } = KNOWN_GATES[name];
      if (spec.locked && value !== spec.default) {
        throw new Error(`${FLAG}: cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      }
      if (spec.stage === 'DEPRECATED') warn(`${FLAG}: ${name}=${value}: the ${name} feature gate is deprecated and will go away in a later release`);
      if (spec.stage === 'GA') warn(`${FLAG}: ${name}=${value}: the ${name} feature is GA and always on; the gate will go away in a later release`);
      values[name] = value;
    }
    return new FeatureGates(Object.freeze(values));
  }

  enabled(name: GateName): boolean {
    return this.values[name];
  }

  /** Every known gate with its stage, default and value here. */
  states(): GateState[] {
    return gateNames().map((name) => {
      const g: { stage: GateStage; default: boolean; locked?: true } = KNOWN_GATES[name];
      return { name, stage: g.stage, default: g.default, locked: g.locked === true, enabled: this.values[name] };
    });
  }
}

export function gateNames(): GateName[] {
  return Object.keys(KNOWN_GATES) as GateName[];
}

function isGateName(name: string): name is GateName {
  return Object.prototype.hasOwnProperty.call(KNOWN_GATES, name);
}

/** Go's strconv.ParseBool spellings, which the reference's flag accepts. */
const BOOLS: Readonly<Record<string, boolean>> = {
  '1': true, t: true, T: true, true: true, TRUE: true, True: true,
  '0': false, f: false, F: false, false: false, FALSE: false, False: false,
};

/**
 * `--feature-gates=A=true,B=false`: the settings, syntax only (names are checked by `resolve`). Several
 * occurrences of the flag are joined by the caller; a later setting of a name replaces an earlier one.
 */
export function parseFeatureGateList(text: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const raw of text.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) throw new Error(`${FLAG}: missing bool value for ${part} (expected ${part}=true or ${part}=false)`);
    const name = part.slice(0, eq).trim();
    const text = part.slice(eq + 1).trim();
    const value = BOOLS[text];
    if (name === '' || value === undefined) throw new Error(`${FLAG}: invalid value of ${part} (expected Name=true or Name=false)`);
    out[name] = value;
  }
  return out;
}

/** The `--feature-gates` help text: one line per gate with its stage and default (rule 10). */
export function featureGatesUsage(indent: string): string {
  const lines = gateNames().map((name) => {
    const g: { stage: GateStage; default: boolean; locked?: true; controls: string } = KNOWN_GATES[name];
    const state = g.locked ? 'always on' : `default ${g.default}`;
    return `${indent}${name}=true|false (${g.stage}, ${state}): ${g.controls}`;
  });
  return `${indent}AllAlpha=true|false, AllBeta=true|false: every alpha or beta gate not named explicitly\n${lines.join('\n')}\n`;
}

/**
 * Flags a disabled gate forbids (a feature turned off is refused, never half-applied). `given` says
 * which of those flags were given; the first conflict is an Error naming the flag and the gate.
 */
export function checkGatedFlags(gates: FeatureGates, given: { authenticationConfig?: boolean; authorizationConfig?: boolean; tracingConfig?: boolean }): void {
  const refuse = (flag: string, gate: GateName) =>
    new Error(`--${flag}: cannot be used while the ${gate} feature gate is disabled (remove ${gate}=false from ${FLAG})`);
  if (given.authenticationConfig && !gates.enabled('StructuredAuthenticationConfiguration')) throw refuse('authentication-config', 'StructuredAuthenticationConfiguration');
  if (given.authorizationConfig && !gates.enabled('StructuredAuthorizationConfiguration')) throw refuse('authorization-config', 'StructuredAuthorizationConfiguration');
  if (given.tracingConfig && !gates.enabled('APIServerTracing')) throw refuse('tracing-config-file', 'APIServerTracing');
}
