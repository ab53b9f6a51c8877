/** The core group (`/api/v1`) types, in discovery order. */
import type { ResourceType } from '../types.js';
import { configmaps } from './configmaps/index.js';
import { endpoints } from './endpoints/index.js';
import { namespaces } from './namespaces/index.js';
import { nodes } from './nodes/index.js';
import { pods } from './pods/index.js';
import { secrets } from './secrets/index.js';
import { serviceaccounts } from './serviceaccounts/index.js';
import { services } from './services/index.js';

export const coreTypes: ResourceType[] = [namespaces, configmaps, secrets, serviceaccounts, pods, nodes, services, endpoints];
