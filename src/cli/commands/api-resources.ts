/**
 * `orchctl api-resources` and `orchctl api-versions`: what discovery says the server serves, printed as the
 * reference client prints it (core group first, then groups by name; each group's preferred version).
 */
import type { Command } from 'commander';
import { groupVersionOf, type ResourceInfo } from '../../client/index.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { UsageError } from '../errors.js';
import { alignRows } from '../output/table.js';

export interface ApiResourcesFlags {
  output?: string;
  apiGroup?: string;
  namespaced?: boolean | string;
  verbs?: string;
  noHeaders?: boolean;
  sortBy?: string;
}

/** Pure: the resources to show, filtered and in the reference's order. */
export function selectResources(all: readonly ResourceInfo[], f: ApiResourcesFlags): ResourceInfo[] {
  const namespaced = f.namespaced === undefined ? undefined : f.namespaced === true || f.namespaced === 'true' ? true : f.namespaced === 'false' ? false : bad(`--namespaced: invalid value "${String(f.namespaced)}": give true or false`);
  const verbs = f.verbs ? f.verbs.split(',').filter((v) => v !== '') : [];
  if (f.sortBy !== undefined && f.sortBy !== 'name' && f.sortBy !== 'kind') bad(`--sort-by accepts only name or kind, not "${f.sortBy}"`);
  const shown = all.filter(
    (r) =>
      r.preferred &&
      (f.apiGroup === undefined || r.group === f.apiGroup) &&
      (namespaced === undefined || r.namespaced === namespaced) &&
      verbs.every((v) => r.verbs.includes(v)),
  );
  const key = (r: ResourceInfo) => (f.sortBy === 'kind' ? r.kind : f.sortBy === 'name' ? r.plural : '');
  return shown.sort((a, b) => {
    if (f.sortBy) return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
    if (a.group !== b.group) return a.group === '' ? -1 : b.group === '' ? 1 : a.group < b.group ? -1 : 1;
    return a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0;
  });
}

function bad(message: string): never {
  throw new UsageError(message, 'api-resources');
}

/** Pure: the text of `api-resources` for the selected resources. */
export function apiResourcesText(rows: readonly ResourceInfo[], output: string | undefined, noHeaders = false): string {
  if (output === 'name') return rows.map((r) => `${r.plural}${r.group ? `.${r.group}` : ''}\n`).join('');
  if (output !== undefined && output !== 'wide') bad(`--output: "${output}" is not one of wide, name`);
  const wide = output === 'wide';
  const header = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', ...(wide ? ['VERBS', 'CATEGORIES'] : [])];
  const cells = rows.map((r) => [
    r.plural,
    r.shortNames.join(','),
    groupVersionOf(r.group, r.version),
    String(r.namespaced),
    r.kind,
    ...(wide ? [[...r.verbs].sort().join(','), r.categories.join(',')] : []),
  ]);
  return alignRows(noHeaders ? cells : [header, ...cells]);
}

/** Pure: every served group version, sorted as `api-versions` prints them. */
export function apiVersionsText(all: readonly ResourceInfo[], groupVersions: readonly string[] = []): string {
  const set = new Set([...groupVersions, ...all.map((r) => groupVersionOf(r.group, r.version))]);
  return [...set].sort().map((v) => `${v}\n`).join('');
}

export const registerApiResources: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('api-resources')
    .description('List the resource types the server serves')
    .option('-o, --output <format>', 'wide (adds verbs and categories) or name')
    .option('--api-group <group>', 'only this API group ("" for the core group)')
    .option('--namespaced [bool]', 'true: only namespaced types; false: only cluster-scoped ones')
    .option('--verbs <verbs>', 'only types supporting all these verbs (comma-separated)')
    .option('--sort-by <field>', 'name or kind')
    .option('--no-headers', 'leave out the header line')
    .action(async (_o: unknown, cmd: Command) => {
      const o = cmd.opts<ApiResourcesFlags & { headers?: boolean }>();
      const client = await ctx.client();
      const rows = selectResources(await client.discovery.resources(), o);
      ctx.io.out(apiResourcesText(rows, o.output, o.headers === false));
    });
  program
    .command('api-versions')
    .description('List the API group versions the server serves')
    .action(async () => {
      const client = await ctx.client();
      // Group versions without resources are listed too: read them from /apis itself.
      const groups = await client.transport.json<{ groups: { versions: { groupVersion: string }[] }[] }>({ method: 'GET', path: '/apis' });
      const core = await client.transport.json<{ versions: string[] }>({ method: 'GET', path: '/api' });
      ctx.io.out(apiVersionsText([], [...core.versions, ...groups.groups.flatMap((g) => g.versions.map((v) => v.groupVersion))]));
    });
};
