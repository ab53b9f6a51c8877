import type { ResourceType } from '../../types.js';
import { ingressClasses } from './ingress-class.js';
import { ingresses } from './ingress.js';
import { networkPolicies } from './network-policy.js';

/** Types of this group with behaviour of their own; the group's other resources are served from the reference data alone. */
export const networkingTypes: ResourceType[] = [ingresses, ingressClasses, networkPolicies];
