/**
 * Authorization (spec 5.7): an Authorizer answers allow, deny or no opinion for request attributes; modes
 * are consulted in order and the first allow or deny decides; no opinion from all is a deny (403).
 */
export interface Attributes {
  user: { username: string; groups: string[]; uid?: string; extra?: Record<string, string[]> };
  verb: string;
  isResourceRequest: boolean;
  /** Non-resource requests. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export type Decision = { decision: 'allow' | 'deny' | 'noOpinion'; reason?: string };

export interface Authorizer {
  authorize(a: Attributes): Promise<Decision>;
}

export class AlwaysAllowAuthorizer implements Authorizer {
  async authorize(): Promise<Decision> {
    return { decision: 'allow' };
  }
}

export class AlwaysDenyAuthorizer implements Authorizer {
  async authorize(): Promise<Decision> {
    return { decision: 'deny', reason: 'Everything is forbidden.' };
  }
}

/** `system:masters` bypasses every authorizer (spec 5.7 item 7). */
export const SUPERUSER_GROUP = 'system:masters';

export class UnionAuthorizer implements Authorizer {
  constructor(private readonly authorizers: Authorizer[]) {}
  async authorize(a: Attributes): Promise<Decision> {
    if (a.user.groups.includes(SUPERUSER_GROUP)) return { decision: 'allow' };
    const reasons: string[] = [];
    for (const z of this.authorizers) {
      const d = await z.authorize(a);
      if (d.decision !== 'noOpinion') return d;
      if (d.reason) reasons.push(d.reason);
    }
    return { decision: 'noOpinion', ...(reasons.length ? { reason: reasons.join('; ') } : {}) };
  }
}

/** The 403 message in the reference's form. */
export function forbiddenMessage(a: Attributes, reason?: string): string {
  const who = `User "${a.user.username}"`;
  const tail = reason ? `: ${reason}` : '';
  if (!a.isResourceRequest) return `forbidden: ${who} cannot ${a.verb} path "${a.path}"${tail}`;
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const what = a.name ? `${res} "${a.name}" is forbidden` : `${res} is forbidden`;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `${what}: ${who} cannot ${a.verb} resource "${res}" in API group "${a.apiGroup}" ${scope}${tail}`;
}
