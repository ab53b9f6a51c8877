/** ClusterRole aggregation: aggregated ClusterRoles hold the rules of the roles their selectors match. */
export { clusterRoleAggregationController, CLUSTERROLE_AGGREGATION, aggregatedRole } from './controller.js';
