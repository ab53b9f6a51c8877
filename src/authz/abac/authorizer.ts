/**
 * The ABAC authorizer (reference behaviour): the first policy that matches the request allows it; when
 * none does the answer is "no opinion" (ABAC never denies). Matching, as the reference does it:
 * - subject: a set `user` must equal the user name (`*` any); a set `group` must be one of the user's
 *   groups (`*` any); a policy with neither matches nobody;
 * - verb: get, list and watch match every policy; other verbs only policies that are not `readonly`;
 * - resource requests: `namespace`, `resource` and `apiGroup` each equal or `*` (subresource and name are
 *   not looked at); non-resource requests: `nonResourcePath` `*`, equal, or a prefix ending in `*`.
 */
import { readFileSync } from 'node:fs';
import type { Attributes, Authorizer, Decision } from '../index.js';
import { parseAbacPolicy, type AbacPolicy } from './policy.js';

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);
const ALLOW: Decision = { decision: 'allow' };
const NO_MATCH: Decision = { decision: 'noOpinion', reason: 'No policy matched.' };

export function subjectMatches(p: AbacPolicy, user: Attributes['user']): boolean {
  let matched = false;
  if (p.user !== '') {
    if (p.user !== '*' && p.user !== user.username) return false;
    matched = true;
  }
  if (p.group !== '') {
    if (p.group !== '*' && !user.groups.includes(p.group)) return false;
    matched = true;
  }
  return matched;
}

function nonResourcePathMatches(pattern: string, path: string): boolean {
  if (pattern === '*' || pattern === path) return true;
  if (!pattern.endsWith('*')) return false;
  return path.startsWith(pattern.replace(/\*+$/, ''));
}

export function policyMatches(p: AbacPolicy, a: Attributes): boolean {
  if (!subjectMatches(p, a.user)) return false;
  if (p.readonly && !READ_ONLY_VERBS.has(a.verb)) return false;
  if (!a.isResourceRequest) return nonResourcePathMatches(p.nonResourcePath, a.path);
  return (
    (p.namespace === '*' || p.namespace === a.namespace) &&
    (p.resource === '*' || p.resource === a.resource) &&
    (p.apiGroup === '*' || p.apiGroup === a.apiGroup)
  );
}

export class AbacAuthorizer implements Authorizer {
  constructor(private readonly policies: readonly AbacPolicy[]) {}

  /** Reads and checks the policy file at start-up; every problem is an Error naming the file (and line). */
  static fromFile(path: string): AbacAuthorizer {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new Error(`--authorization-policy-file: cannot read ${path}: ${(e as Error).message}`);
    }
    return new AbacAuthorizer(parseAbacPolicy(text, path));
  }

  async authorize(a: Attributes): Promise<Decision> {
    for (const p of this.policies) if (policyMatches(p, a)) return ALLOW;
    return NO_MATCH;
  }
}
