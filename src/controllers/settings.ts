/** The settings controllers read (contract.ts ControllerManagerSettings), built from flags or a server's own facts. */
import type { ControllerManagerSettings } from './contract.js';

export const DEFAULT_SIGNING_DURATION_MS = 365 * 24 * 3600 * 1000;
export const DEFAULT_TERMINATED_POD_GC_THRESHOLD = 12500;

/** The reference's default concurrent syncs of the controllers here; 5 for any other. */
export const DEFAULT_CONCURRENCY: Readonly<Record<string, number>> = {
  'namespace-controller': 10,
  'garbage-collector-controller': 20,
  'ttl-after-finished-controller': 5,
};

export interface SettingsInput {
  clusterSigning?: { certPem: string; keyPem: string };
  clusterSigningDurationMs?: number;
  terminatedPodGcThreshold?: number;
  rootCaPem?: string;
  /** Concurrent syncs by controller name (overrides DEFAULT_CONCURRENCY). */
  concurrency?: Record<string, number>;
}

export function controllerSettings(i: SettingsInput = {}): ControllerManagerSettings {
  const concurrency = { ...DEFAULT_CONCURRENCY, ...i.concurrency };
  return {
    ...(i.clusterSigning ? { clusterSigning: i.clusterSigning } : {}),
    clusterSigningDurationMs: i.clusterSigningDurationMs ?? DEFAULT_SIGNING_DURATION_MS,
    terminatedPodGcThreshold: i.terminatedPodGcThreshold ?? DEFAULT_TERMINATED_POD_GC_THRESHOLD,
    ...(i.rootCaPem !== undefined ? { rootCaPem: i.rootCaPem } : {}),
    concurrency: (name) => concurrency[name] ?? 5,
  };
}
