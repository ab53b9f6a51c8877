/**
 * The arguments of `get` and `describe` as the reference reads them: `TYPE[,TYPE...] [NAME...]` or
 * `TYPE/NAME...`, the two forms not mixed. Pure; resolving the type spellings is discovery's job.
 */
import type { Client, ResourceInfo } from '../../client/index.js';
import { UsageError } from '../errors.js';

export interface Request {
  /** The user's spelling of the type (`cm`, `deployments.apps`). */
  type: string;
  /** Names asked for; empty = the whole collection. */
  names: string[];
}

/** Groups the arguments into one request per type, in the order the types first appear. */
export function parseResourceArgs(args: readonly string[], command: string): Request[] {
  if (args.length === 0) throw new UsageError(`you must specify the type of resource to ${command} (see 'orchctl api-resources' for the types the server serves)`, command);
  const slashed = args.filter((a) => a.includes('/'));
  if (slashed.length > 0) {
    if (slashed.length !== args.length) {
      throw new UsageError(`there is no need to give a resource type as a separate argument when passing arguments in TYPE/NAME form (e.g. 'orchctl ${command} cm/a' instead of 'orchctl ${command} cm cm/a')`, command);
    }
    const out: Request[] = [];
    for (const a of args) {
      const slash = a.indexOf('/');
      const type = a.slice(0, slash);
      const name = a.slice(slash + 1);
      if (type === '' || name === '' || name.includes('/')) throw new UsageError(`arguments in TYPE/NAME form must have a single resource and name: "${a}"`, command);
      const existing = out.find((r) => r.type === type);
      if (existing) existing.names.push(name);
      else out.push({ type, names: [name] });
    }
    return out;
  }
  const [types, ...names] = args as [string, ...string[]];
  const list = types.split(',');
  if (list.some((t) => t === '')) throw new UsageError(`invalid resource type list "${types}"`, command);
  return [...new Set(list)].map((type) => ({ type, names: [...names] }));
}

export interface ResolvedRequest {
  info: ResourceInfo;
  names: string[];
}

/** Each request's type through discovery; the same resource named twice (`cm,configmaps`) is asked once. */
export async function resolveRequests(client: Client, requests: readonly Request[]): Promise<ResolvedRequest[]> {
  const out: ResolvedRequest[] = [];
  for (const r of requests) {
    const info = await client.discovery.find(r.type).catch((e: unknown) => {
      // The reference reports an unknown type as a client-side error, not a server Status.
      throw new Error(e instanceof Error ? e.message : String(e));
    });
    const same = out.find((o) => o.info.group === info.group && o.info.plural === info.plural);
    if (same) same.names.push(...r.names.filter((n) => !same.names.includes(n)));
    else out.push({ info, names: [...r.names] });
  }
  return out;
}

/** `configmap`, `deployment.apps`: how the reference spells a kind in `-o name` and multi-kind tables. */
export const kindPrefix = (info: Pick<ResourceInfo, 'kind' | 'group'>): string => `${info.kind.toLowerCase()}${info.group ? `.${info.group}` : ''}/`;
