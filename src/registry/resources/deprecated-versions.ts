/**
 * Served resources the reference marks deprecated in release 1.31 (spec 7): requests to them get a
 * `Warning: 299` header worded as the reference words it. `deprecationOf` is the one place that decides,
 * so the audit annotation and the `apiserver_requested_deprecated_apis` metric can use it too.
 */
import { GROUP_SUFFIX } from '../../api/naming.js';
import { SERVED_RELEASE } from './removed-versions.js';

interface DeprecatedApi {
  group: string;
  version: string;
  plural: string;
  kind: string;
  /** `1.<minor>`: the release from which requests warn. */
  deprecatedIn: string;
  /** `1.<minor>`: the release that stops serving it; absent when no removal is planned. */
  removedIn?: string;
  /** `<group>/<version> <Kind>` to use instead. */
  replacement?: string;
}

const FLOWCONTROL = `flowcontrol.apiserver.${GROUP_SUFFIX}`;
const ADMISSION = `admissionregistration.${GROUP_SUFFIX}`;

const FLOWCONTROL_KINDS = [
  ['flowschemas', 'FlowSchema'],
  ['prioritylevelconfigurations', 'PriorityLevelConfiguration'],
] as const;
const POLICY_KINDS = [
  ['validatingadmissionpolicies', 'ValidatingAdmissionPolicy'],
  ['validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding'],
] as const;

const DEPRECATED_APIS: readonly DeprecatedApi[] = [
  { group: '', version: 'v1', plural: 'componentstatuses', kind: 'ComponentStatus', deprecatedIn: '1.19' },
  ...FLOWCONTROL_KINDS.map(([plural, kind]) => ({
    group: FLOWCONTROL, version: 'v1beta3', plural, kind, deprecatedIn: '1.29', removedIn: '1.32', replacement: `${FLOWCONTROL}/v1 ${kind}`,
  })),
  // Prerelease versions are deprecated three releases after their introduction (v1beta1 in 1.28, v1alpha1 in 1.26).
  ...POLICY_KINDS.flatMap(([plural, kind]) => [
    { group: ADMISSION, version: 'v1beta1', plural, kind, deprecatedIn: '1.31', removedIn: '1.34' },
    { group: ADMISSION, version: 'v1alpha1', plural, kind, deprecatedIn: '1.29', removedIn: '1.32', replacement: `${ADMISSION}/v1 ${kind}` },
  ]),
];

/** Why a request is deprecated: the warning text, and the release that removes the API ('' if none). */
export interface Deprecation {
  warning: string;
  removedRelease: string;
}

const minorOf = (release: string): number => Number(release.split('.')[1]);

function warningText(d: DeprecatedApi): string {
  const gv = d.group === '' ? d.version : `${d.group}/${d.version}`;
  let text = `${gv} ${d.kind} is deprecated in v${d.deprecatedIn}+`;
  if (d.removedIn) text += `, unavailable in v${d.removedIn}+`;
  if (d.replacement) text += `; use ${d.replacement}`;
  return text;
}

/** Whether a request to this resource (any subresource) is deprecated in the served release, and why. */
export function deprecationOf(group: string, version: string, plural: string): Deprecation | undefined {
  const d = DEPRECATED_APIS.find((x) => x.group === group && x.version === version && x.plural === plural);
  if (!d || minorOf(d.deprecatedIn) > SERVED_RELEASE.minor) return undefined;
  return { warning: warningText(d), removedRelease: d.removedIn ?? '' };
}
