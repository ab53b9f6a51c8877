/**
 * Metric stability and deprecation (spec 3.4). Every metric carries a class (ALPHA, BETA, STABLE) shown
 * in its HELP text. A metric deprecated in a release up to the current one is still exposed, with the
 * deprecation named in its help; from the current release minus 3 on it is hidden, and only
 * `--show-hidden-metrics-for-version=<previous release>` brings back the ones hidden in this release.
 */

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

/** The release these metrics belong to (the reference release the server follows). */
export const CURRENT_RELEASE = { major: 1, minor: 31 } as const;

/** How many minor releases a deprecated metric stays visible before it is hidden. */
const RELEASES_UNTIL_HIDDEN = 3;

export interface MinorVersion {
  major: number;
  minor: number;
}

/** `<major>.<minor>` (the form the flag and the deprecation fields take), or undefined when malformed. */
export function parseMinorVersion(text: string): MinorVersion | undefined {
  const m = /^(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(text);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]) };
}

export function formatMinorVersion(v: MinorVersion): string {
  return `${v.major}.${v.minor}`;
}

function compare(a: MinorVersion, b: MinorVersion): number {
  return a.major !== b.major ? a.major - b.major : a.minor - b.minor;
}

/** The only value `--show-hidden-metrics-for-version` accepts: the release before the current one. */
export function previousRelease(current: MinorVersion = CURRENT_RELEASE): MinorVersion {
  return { major: current.major, minor: current.minor - 1 };
}

/**
 * Checks `--show-hidden-metrics-for-version`. Empty means not given. Like the reference, anything but the
 * previous minor release is refused, so that an operator notices each release's newly hidden metrics.
 */
export function checkShowHiddenVersion(value: string | undefined, current: MinorVersion = CURRENT_RELEASE): MinorVersion | undefined {
  if (value === undefined || value === '') return undefined;
  const expected = formatMinorVersion(previousRelease(current));
  const v = parseMinorVersion(value);
  if (!v) throw new Error(`--show-hidden-metrics-for-version: invalid value "${value}": must have the form <major>.<minor>, and only "${expected}" is allowed`);
  if (compare(v, previousRelease(current)) !== 0) {
    throw new Error(`--show-hidden-metrics-for-version: invalid value "${value}": only the previous minor release "${expected}" is allowed`);
  }
  return v;
}

export type DeprecationState = 'active' | 'deprecated' | 'hidden';

/**
 * Where a metric stands in the current release. A deprecation announced for a later release has no effect
 * yet. A metric is hidden once deprecated for three releases; the flag shows the ones hidden in this very
 * release (deprecated exactly three releases ago); older ones should be gone and stay hidden.
 */
export function deprecationState(deprecatedVersion: string | undefined, showHidden: MinorVersion | undefined, current: MinorVersion = CURRENT_RELEASE): DeprecationState {
  if (deprecatedVersion === undefined) return 'active';
  const v = parseMinorVersion(deprecatedVersion);
  if (!v) throw new Error(`metric deprecatedVersion "${deprecatedVersion}" must have the form <major>.<minor>`);
  if (compare(v, current) > 0) return 'active';
  const hiddenFrom = { major: current.major, minor: current.minor - RELEASES_UNTIL_HIDDEN };
  const cmp = compare(v, hiddenFrom);
  if (cmp > 0) return 'deprecated';
  if (cmp === 0 && showHidden) return 'deprecated';
  return 'hidden';
}

/** The HELP text as exposed: the class first, then (for a deprecated metric) the release it was deprecated in. */
export function helpText(help: string, stability: StabilityLevel, state: DeprecationState, deprecatedVersion: string | undefined): string {
  const deprecation = state === 'active' ? '' : `(Deprecated from ${deprecatedVersion}) `;
  return `[${stability}] ${deprecation}${help}`;
}
