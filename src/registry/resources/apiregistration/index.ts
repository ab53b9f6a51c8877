/**
 * apiregistration/v1 APIService: stored and validated here, with one local APIService per served
 * group/version created at start. Proxying to remote APIServices (aggregation) is later work.
 *
 * Bootstrap objects go through create, which resets status. Rather than a second, status write after each
 * create, the strategy derives the Available condition of a local APIService on every write: it is a fact
 * of the object (no service means this server serves it), so every path (bootstrap, clients, apply) ends
 * with the same status, and nothing outside this folder has to know about it.
 */
import type { ApiObject } from '../../../api/types.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isRec, type Rec } from '../events/fields.js';
import { referenceType } from '../reference.js';
import { defaultAPIService, settleAvailability, validateAPIService } from './apiservice.js';
import { APIREGISTRATION_GROUP, apiServicesFor } from './bootstrap.js';

export { APIREGISTRATION_GROUP } from './bootstrap.js';

const rec = (v: unknown): Rec => (isRec(v) ? v : {});

/** `Local`, or `namespace/name` of the service that serves the API. */
function serviceCell(o: ApiObject): string {
  const service = rec(o.spec).service;
  return isRec(service) ? `${String(service.namespace ?? '')}/${String(service.name ?? '')}` : 'Local';
}

/** `True`, `<status> (<reason>)` otherwise, or `Unknown` before anyone has judged it. */
function availableCell(o: ApiObject): string {
  const conditions = Array.isArray(rec(o.status).conditions) ? (rec(o.status).conditions as unknown[]) : [];
  const c = conditions.find((x) => isRec(x) && x.type === 'Available');
  if (!isRec(c)) return 'Unknown';
  const status = String(c.status ?? '');
  return status !== 'True' && typeof c.reason === 'string' && c.reason !== '' ? `${status} (${c.reason})` : status;
}

const prepare = (o: ApiObject) => {
  defaultAPIService(o);
  settleAvailability(o);
};

export const apiServices = referenceType(APIREGISTRATION_GROUP, 'v1', 'apiservices', {
  categories: ['api-extensions'],
  tableColumns: [
    column('Service', 'string', 'The service that serves this API, or Local.', serviceCell),
    column('Available', 'string', 'Whether this API is available.', availableCell),
  ],
  strategy: {
    // The reference checks the name against spec (version.group) in validation, after the path-segment rule.
    nameRule: 'path-segment',
    prepareForCreate: prepare,
    prepareForUpdate: (o) => prepare(o),
    prepareForStatusUpdate: (o) => settleAvailability(o),
    validate: validateAPIService,
  },
});

/** Types of this group with behaviour of their own. */
export const apiregistrationTypes: ResourceType[] = [apiServices];

/** One local APIService per served group/version (see bootstrap.ts). */
export function apiregistrationBootstrap(served: readonly ResourceType[]): ApiObject[] {
  return apiServicesFor(served);
}
