/**
 * PriorityLevelConfiguration validation with the reference's rules and wording: `Exempt` exactly for the
 * level named `exempt`, the block matching the type, non-negative shares (0 is allowed since 1.30),
 * percentages in range, and queuing parameters that shuffle sharding can use. Mandatory levels keep their
 * spec (`exempt` may change only its `exempt` block).
 */
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { required } from '../admissionregistration/rules.js';
import { FieldReader, type Rec } from '../events/fields.js';
import { mandatorySpec } from './bootstrap.js';
import { sameSpec, validateConditions } from './validate-flowschema.js';

export const LEVEL_TYPES = ['Exempt', 'Limited'] as const;
export const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject'] as const;
/** Upper bound on queues, and on the hash bits shuffle sharding may consume (the reference's limits). */
export const MAX_QUEUES = 10_000_000;
export const MAX_HASH_BITS = 60;

/** Bits of hash value that dealing a hand of `handSize` from `deckSize` cards consumes (a slight over-estimate). */
export const requiredEntropyBits = (deckSize: number, handSize: number): number => Math.ceil(Math.log2(deckSize) * handSize);

function percentInRange(r: FieldReader, block: Rec, path: string): FieldError[] {
  const lendable = r.int(block, 'lendablePercent', `${path}.lendablePercent`);
  if (lendable !== undefined && (lendable < 0 || lendable > 100)) return [fieldError.invalid(`${path}.lendablePercent`, lendable, 'must be between 0 and 100, inclusive')];
  return [];
}

export function validateQueuing(r: FieldReader, q: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const limit = r.int(q, 'queueLengthLimit', `${path}.queueLengthLimit`) ?? 0;
  if (limit <= 0) errs.push(fieldError.invalid(`${path}.queueLengthLimit`, limit, 'must be positive'));
  const queues = r.int(q, 'queues', `${path}.queues`) ?? 0;
  if (queues <= 0) errs.push(fieldError.invalid(`${path}.queues`, queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(fieldError.invalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  const handSize = r.int(q, 'handSize', `${path}.handSize`) ?? 0;
  if (handSize <= 0) errs.push(fieldError.invalid(`${path}.handSize`, handSize, 'must be positive'));
  else if (handSize > queues) errs.push(fieldError.invalid(`${path}.handSize`, handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
    errs.push(fieldError.invalid(`${path}.handSize`, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errs;
}

function validateLimitResponse(r: FieldReader, limited: Rec, path: string): FieldError[] {
  const response = r.obj(limited, 'limitResponse', path);
  const type = r.str(response, 'type', `${path}.type`);
  const queuing = r.obj(response, 'queuing', `${path}.queuing`);
  if (type === 'Reject') return queuing ? [fieldError.forbidden(`${path}.queuing`, 'must be nil if limited.limitResponse.type is not Limited')] : [];
  if (type === 'Queue') return queuing ? validateQueuing(r, queuing, `${path}.queuing`) : [required(`${path}.queuing`, 'must not be empty if limited.limitResponse.type is Limited')];
  return [fieldError.notSupported(`${path}.type`, type, LIMIT_RESPONSE_TYPES)];
}

function validateLimited(r: FieldReader, limited: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const shares = r.int(limited, 'nominalConcurrencyShares', `${path}.nominalConcurrencyShares`);
  if (shares !== undefined && shares < 0) errs.push(fieldError.invalid(`${path}.nominalConcurrencyShares`, shares, 'must be a non-negative integer'));
  errs.push(...validateLimitResponse(r, limited, `${path}.limitResponse`));
  errs.push(...percentInRange(r, limited, path));
  const borrowing = r.int(limited, 'borrowingLimitPercent', `${path}.borrowingLimitPercent`);
  if (borrowing !== undefined && borrowing < 0) errs.push(fieldError.invalid(`${path}.borrowingLimitPercent`, borrowing, 'if specified, must be a non-negative integer'));
  return errs;
}

function validateExempt(r: FieldReader, exempt: Rec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const shares = r.int(exempt, 'nominalConcurrencyShares', `${path}.nominalConcurrencyShares`);
  if (shares !== undefined && shares < 0) errs.push(fieldError.invalid(`${path}.nominalConcurrencyShares`, shares, 'must be a non-negative integer'));
  errs.push(...percentInRange(r, exempt, path));
  return errs;
}

function validateMandatory(name: unknown, spec: Rec | undefined): FieldError[] {
  const fixed = mandatorySpec('PriorityLevelConfiguration', name);
  if (!fixed) return [];
  if (name === 'exempt') {
    // Operators may tune the exempt level's own block; the rest is fixed.
    const { exempt: _have, ...rest } = spec ?? {};
    const { exempt: _want, ...fixedRest } = fixed;
    return sameSpec(rest, fixedRest) ? [] : [fieldError.invalid('spec', spec ?? null, "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value")];
  }
  return sameSpec(spec, fixed) ? [] : [fieldError.invalid('spec', spec ?? null, `spec of '${String(name)}' must equal the fixed value`)];
}

export function validatePriorityLevel(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs: FieldError[] = [];
  const name = o.metadata?.name;
  const spec = r.obj(o, 'spec', 'spec');
  const type = r.str(spec, 'type', 'spec.type');
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(fieldError.invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  const limited = r.obj(spec, 'limited', 'spec.limited');
  const exempt = r.obj(spec, 'exempt', 'spec.exempt');
  if (type === 'Exempt') {
    if (limited) errs.push(fieldError.forbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (exempt) errs.push(...validateExempt(r, exempt, 'spec.exempt'));
  } else if (type === 'Limited') {
    if (exempt) errs.push(fieldError.forbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (limited) errs.push(...validateLimited(r, limited, 'spec.limited'));
    else errs.push(required('spec.limited', 'must not be empty when type is Limited'));
  } else {
    errs.push(fieldError.notSupported('spec.type', type, LEVEL_TYPES));
  }
  errs.push(...validateMandatory(name, spec));
  errs.push(...validateConditions(r, o));
  return [...r.errors, ...errs];
}
