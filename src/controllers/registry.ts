/**
 * Every controller this project has, by the reference's name; the manager picks among them with the
 * `--controllers` rule (config/controller-names.ts). Adding a controller is one line here.
 */
import { bootstrapSignerController, tokenCleanerController } from './bootstrap/index.js';
import { csrApprovingController, csrSigningController } from './certificates/index.js';
import { clusterRoleAggregationController } from './clusterrole-aggregation/index.js';
import type { ControllerDescriptor } from './contract.js';
import { garbageCollectorController } from './garbagecollector/index.js';
import { namespaceController } from './namespace/index.js';
import { podGcController } from './podgc/index.js';
import { rootCaPublisherController } from './root-ca-publisher/index.js';
import { serviceAccountController } from './serviceaccount/index.js';
import { ttlAfterFinishedController } from './ttl-after-finished/index.js';

export const ALL_CONTROLLERS: readonly ControllerDescriptor[] = [
  namespaceController,
  garbageCollectorController,
  serviceAccountController,
  rootCaPublisherController,
  clusterRoleAggregationController,
  bootstrapSignerController,
  tokenCleanerController,
  csrApprovingController,
  csrSigningController,
  ttlAfterFinishedController,
  podGcController,
];
