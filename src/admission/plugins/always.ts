/**
 * AlwaysAdmit and AlwaysDeny: the reference's two trivial plugins (deprecated there, kept for their names).
 * One admits everything; the other refuses every request it sees with 403.
 */
import { forbiddenFor, noConfiguration } from './common.js';
import type { AdmissionDeps, AdmissionPlugin, AdmissionRequest } from '../types.js';

export const ALWAYS_ADMIT = 'AlwaysAdmit';
export const ALWAYS_DENY = 'AlwaysDeny';

export function alwaysAdmitPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(ALWAYS_ADMIT, configuration);
  // Handles nothing, so the chain never calls it.
  return { name: ALWAYS_ADMIT, handles: () => false };
}

export function alwaysDenyPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(ALWAYS_DENY, configuration);
  const deny = (req: AdmissionRequest): never => {
    throw forbiddenFor(req, 'admission control is denying all modifications');
  };
  // Refuses in the mutating stage already (so no validating webhook is called), as the reference does.
  return { name: ALWAYS_DENY, handles: () => true, admit: deny, validate: deny };
}
