import type { ResourceType } from '../../types.js';
import { certificateSigningRequests } from './csr.js';
import { clusterTrustBundles } from './trust-bundle.js';

/** Types of this group with behaviour of their own; the group's other resources are served from the reference data alone. */
export const certificatesTypes: ResourceType[] = [certificateSigningRequests, clusterTrustBundles];
