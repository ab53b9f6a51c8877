/**
 * `orchctl describe`: objects by name (a name not found also matches objects whose names start with it,
 * as the reference does), a whole collection, or by label selector, each with its recent Events.
 */
import type { Command } from 'commander';
import { isNotFound, type Client, type KubeObject, type ResourceClient, type ResourceInfo } from '../../client/index.js';
import { EVENTS_GROUP } from '../../api/naming.js';
import { StatusError } from '../../errors/index.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { errorText, ExitCode, UsageError } from '../errors.js';
import { describeText, type EventLike } from './describe-render.js';
import { parseResourceArgs, resolveRequests } from './get-args.js';

interface DescribeFlags {
  selector?: string;
  allNamespaces?: boolean;
  showEvents: boolean;
  chunkSize: string;
}

/** The core Events whose involvedObject is `obj` (by uid), newest last; none when the server has none. */
async function eventsFor(client: Client, obj: KubeObject, info: ResourceInfo): Promise<EventLike[]> {
  const uid = obj.metadata.uid;
  if (!uid || (info.group === '' && info.plural === 'events') || info.group === EVENTS_GROUP) return [];
  const events = client.resource({ group: '', version: 'v1', plural: 'events' }, obj.metadata.namespace || undefined);
  try {
    const { items } = await events.listAll({ fieldSelector: `involvedObject.uid=${uid}` });
    return items as unknown as EventLike[];
  } catch (e) {
    // A server that does not index this field: filter a plain list instead.
    if (!(e instanceof StatusError) || e.code !== 400) throw e;
    const { items } = await events.listAll();
    return (items as unknown as (EventLike & { involvedObject?: { uid?: string } })[]).filter((ev) => ev.involvedObject?.uid === uid);
  }
}

/** `name`, else the objects whose names start with it; NotFound when neither. */
async function byName(rc: ResourceClient, name: string): Promise<KubeObject[]> {
  try {
    return [await rc.get(name)];
  } catch (e) {
    if (!isNotFound(e)) throw e;
    const { items } = await rc.listAll();
    const matches = items.filter((o) => (o.metadata.name ?? '').startsWith(name));
    if (matches.length === 0) throw e;
    return matches;
  }
}

export async function runDescribe(ctx: CliContext, args: string[], f: DescribeFlags): Promise<void> {
  const client = await ctx.client();
  const requests = parseResourceArgs(args, 'describe');
  const resolved = await resolveRequests(client, requests);
  if (f.allNamespaces && resolved.some((r) => r.names.length > 0 && r.info.namespaced)) {
    throw new UsageError('a resource cannot be described by name across all namespaces', 'describe');
  }
  const namespace = f.allNamespaces ? undefined : await ctx.namespace();
  const limit = /^\d+$/.test(f.chunkSize) ? Number(f.chunkSize) : (() => { throw new UsageError(`--chunk-size: invalid value "${f.chunkSize}"`, 'describe'); })();
  const errors: unknown[] = [];
  let printed = 0;
  for (const r of resolved) {
    const rc = client.resource(r.info, r.info.namespaced ? namespace : undefined);
    let objects: KubeObject[] = [];
    if (r.names.length === 0) {
      objects = (await rc.listAll({ ...(f.selector ? { labelSelector: f.selector } : {}), ...(limit > 0 ? { limit } : {}) })).items;
    } else {
      for (const name of r.names) {
        try {
          objects.push(...(await byName(rc, name)));
        } catch (e) {
          errors.push(e);
        }
      }
    }
    for (const obj of objects) {
      obj.apiVersion ??= r.info.group ? `${r.info.group}/${r.info.version}` : r.info.version;
      obj.kind ??= r.info.kind;
      const events = f.showEvents ? await eventsFor(client, obj, r.info) : undefined;
      ctx.io.out(`${printed > 0 ? '\n\n' : ''}${describeText(obj, events, Date.now())}`);
      printed++;
    }
  }
  for (const e of errors) ctx.io.err(`${errorText(e)}\n`);
  if (printed === 0 && errors.length === 0) {
    const scoped = namespace !== undefined && resolved.some((r) => r.info.namespaced);
    ctx.io.err(scoped ? `No resources found in ${namespace} namespace.\n` : 'No resources found\n');
  }
  if (errors.length > 0) throw new ExitCode(1);
}

export const registerDescribe: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('describe')
    .description('Show objects in detail, with their recent events')
    .argument('[args...]', 'TYPE [NAME_PREFIX...], or TYPE/NAME...')
    .option('-l, --selector <selector>', 'label selector for a collection')
    .option('-A, --all-namespaces', 'describe across every namespace')
    .option('--show-events [bool]', 'show events (default true; --show-events=false leaves them out)', 'true')
    .option('--chunk-size <n>', 'objects per page when listing (0 = all at once)', '500')
    .action(async (args: string[], _o: unknown, cmd: Command) => {
      const o = cmd.opts<{ selector?: string; allNamespaces?: boolean; showEvents: string | boolean; chunkSize: string }>();
      const show = o.showEvents === true || o.showEvents === 'true' ? true : o.showEvents === 'false' ? false : undefined;
      if (show === undefined) throw new UsageError(`--show-events: invalid value "${String(o.showEvents)}": give true or false`, 'describe');
      await runDescribe(ctx, args, { ...o, showEvents: show });
    });
};
