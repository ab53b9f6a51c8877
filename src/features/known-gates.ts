/**
 * Every feature gate this server knows (spec 3.3), with its stage and default as in release 1.31. Only
 * gates whose feature exists here are listed: each one either changes what the server does, or is a GA gate
 * locked on (accepted for compatibility with existing command lines, and never allowed off).
 */

export type GateStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface GateSpec {
  readonly stage: GateStage;
  readonly default: boolean;
  /** GA gates: setting the other value is a start-up error. */
  readonly locked?: true;
  /** What the gate controls here, for `--help` and the README. */
  readonly controls: string;
}

const ga = (controls: string): GateSpec => ({ stage: 'GA', default: true, locked: true, controls });

export const KNOWN_GATES = {
  // Alpha: off unless enabled.
  WatchList: { stage: 'ALPHA', default: false, controls: 'watch with sendInitialEvents=true (streaming lists)' },
  // Beta: on unless disabled.
  APIResponseCompression: { stage: 'BETA', default: true, controls: 'gzip of large GET and LIST responses' },
  APIServerTracing: { stage: 'BETA', default: true, controls: '--tracing-config-file' },
  ConsistentListFromCache: { stage: 'BETA', default: true, controls: 'lists without resourceVersion served from the watch cache' },
  CustomResourceFieldSelectors: { stage: 'BETA', default: true, controls: 'field selectors on the selectableFields of custom resources' },
  StorageVersionHash: { stage: 'BETA', default: true, controls: 'storageVersionHash in discovery documents' },
  StructuredAuthenticationConfiguration: { stage: 'BETA', default: true, controls: '--authentication-config' },
  StructuredAuthorizationConfiguration: { stage: 'BETA', default: true, controls: '--authorization-config' },
  // Deprecated: still working, warned about when set.
  KMSv1: { stage: 'DEPRECATED', default: false, controls: 'kms providers with apiVersion v1 in --encryption-provider-config' },
  // GA, locked on: the feature is always there.
  APIListChunking: ga('limit and continue on lists'),
  AdmissionWebhookMatchConditions: ga('matchConditions of admission webhooks'),
  EfficientWatchResumption: ga('watch cache progress from storage progress notifications'),
  KMSv2: ga('kms providers with apiVersion v2'),
  KMSv2KDF: ga('KMS v2 data keys derived per write from a seed'),
  RemainingItemCount: ga('remainingItemCount on list pages'),
  ServerSideApply: ga('PATCH with application/apply-patch+yaml'),
  ServerSideFieldValidation: ga('the fieldValidation query parameter'),
  ValidatingAdmissionPolicy: ga('ValidatingAdmissionPolicy objects'),
  WatchBookmark: ga('allowWatchBookmarks on watches'),
} as const satisfies Record<string, GateSpec>;

export type GateName = keyof typeof KNOWN_GATES;

/**
 * Names a 1.31 command line may carry that this server does not accept, with why; they are still
 * "unrecognized" (the reference's own answer for a removed gate), the reason only helps the operator.
 */
export const UNAVAILABLE_GATES: Readonly<Record<string, string>> = {
  APIPriorityAndFairness: 'removed in release 1.31; the feature is always on',
  APISelfSubjectReview: 'removed in release 1.30; the API is always served',
  AuthorizeWithSelectors: 'the reference has it as an alpha gate, but this server does not implement authorization with selectors',
  AggregatedDiscoveryEndpoint: 'this server does not serve aggregated discovery',
};

/** Pseudo-gates of the reference that set every alpha or beta gate not named explicitly. */
export const GROUP_GATES = { AllAlpha: 'ALPHA', AllBeta: 'BETA' } as const satisfies Record<string, GateStage>;
