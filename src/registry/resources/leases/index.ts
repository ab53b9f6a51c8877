/**
 * coordination/v1 Lease: the object leader election and node heartbeats renew (architecture rule 8).
 */
import { COORDINATION_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column, obj, pathValue, str } from '../../schema.js';
import { definitionSchema } from '../../reference-schema.js';
import type { ResourceType, Schema } from '../../types.js';
import { isQualifiedName } from '../../validation/index.js';
import { FieldReader, formatMicroTime, normalizeTimestamps } from '../events/fields.js';

/** Strategies without a '/' are reserved for the built-in ones; custom ones are qualified names. */
export const LEASE_STRATEGIES = ['OldestEmulationVersion'] as const;
const INT32_MAX = 2 ** 31 - 1;


export const leaseSchema: Schema = definitionSchema(`api.coordination.v1.Lease`);

function validateStrategy(strategy: string, path: string): FieldError[] {
  if (!strategy.includes('/')) {
    return (LEASE_STRATEGIES as readonly string[]).includes(strategy) ? [] : [fieldError.notSupported(path, strategy, LEASE_STRATEGIES)];
  }
  return isQualifiedName(strategy).map((msg) => fieldError.invalid(path, strategy, msg));
}

/** The reference's LeaseSpec rules: positive duration, non-negative transitions, preferredHolder needs a strategy. */
export function validateLease(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const spec = r.obj(o, 'spec', 'spec');
  const errs: FieldError[] = [];
  r.str(spec, 'holderIdentity', 'spec.holderIdentity');
  r.time(spec, 'acquireTime', 'spec.acquireTime');
  r.time(spec, 'renewTime', 'spec.renewTime');

  const duration = r.int(spec, 'leaseDurationSeconds', 'spec.leaseDurationSeconds');
  if (duration !== undefined && duration <= 0) {
    errs.push(fieldError.invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  }
  const transitions = r.int(spec, 'leaseTransitions', 'spec.leaseTransitions');
  if (transitions !== undefined && transitions < 0) {
    errs.push(fieldError.invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  }
  for (const [key, v] of [
    ['leaseDurationSeconds', duration],
    ['leaseTransitions', transitions],
  ] as const) {
    if (v !== undefined && v > INT32_MAX) errs.push(fieldError.invalid(`spec.${key}`, v, 'must fit in a 32-bit integer'));
  }

  const strategy = r.str(spec, 'strategy', 'spec.strategy');
  if (strategy !== '') errs.push(...validateStrategy(strategy, 'spec.strategy'));
  const preferredHolder = r.str(spec, 'preferredHolder', 'spec.preferredHolder');
  if (preferredHolder !== '' && strategy === '') {
    errs.push(fieldError.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return [...r.errors, ...errs];
}

/** Renewals send MicroTimes; store them in the wire form clients of the reference read back. */
const normalize = (o: ApiObject) => normalizeTimestamps(o, ['spec.acquireTime', 'spec.renewTime'], formatMicroTime);

export const lease: ResourceType = {
  group: COORDINATION_GROUP,
  version: 'v1',
  kind: 'Lease',
  listKind: 'LeaseList',
  plural: 'leases',
  singular: 'lease',
  shortNames: [],
  namespaced: true,
  subresources: [],
  schema: leaseSchema,
  strategy: {
    nameRule: 'subdomain',
    prepareForCreate: normalize,
    prepareForUpdate: (o) => normalize(o),
    validate: validateLease,
    // Renewals rewrite spec every few seconds; the reference does not count them as generations.
    tracksGeneration: false,
    allowUnconditionalUpdate: true,
    allowCreateOnUpdate: false,
  },
  tableColumns: [
    column('Holder', 'string', 'Current holder.', (o) => {
      const v = pathValue(o, 'spec.holderIdentity');
      return typeof v === 'string' ? v : '';
    }),
  ],
  storageKey: `${COORDINATION_GROUP}/leases`,
};
