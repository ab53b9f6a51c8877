/**
 * `orchctl convert -f FILE [--output-version GROUP/VERSION] [--local] [-o yaml|json]`: rewrites manifests
 * into another served version of their kind (spec 9.7). The conversions are convert-rules.ts's table; the
 * server is asked only which versions it serves and prefers (`--local` skips it and uses the table's
 * preferred versions). Several objects print as one `List`, as the reference does.
 */
import type { Command } from 'commander';
import { parseApiVersion } from '../../client/index.js';
import type { KubeObject } from '../../client/index.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { UsageError } from '../errors.js';
import { convertObject, LOCAL_PREFERRED } from './convert-rules.js';

interface ConvertFlags {
  filename?: string[];
  recursive?: boolean;
  outputVersion?: string;
  local?: boolean;
  output?: string;
}

/** What the server serves: group -> { served versions, preferred version }. */
export type ServedVersions = Map<string, { versions: Set<string>; preferred?: string }>;

async function servedVersions(ctx: CliContext): Promise<ServedVersions> {
  const client = await ctx.client();
  const served: ServedVersions = new Map();
  for (const r of await client.discovery.resources()) {
    const entry = served.get(r.group) ?? { versions: new Set<string>() };
    entry.versions.add(r.version);
    if (r.preferred) entry.preferred = r.version;
    served.set(r.group, entry);
  }
  return served;
}

/** Converts every object; `served` (absent with --local) checks that the target version exists on the server. */
export function convertAll(objects: KubeObject[], outputVersion: string | undefined, served: ServedVersions | undefined): KubeObject[] {
  if (outputVersion !== undefined) {
    const { group, version } = parseApiVersion(outputVersion);
    if (!version) throw new UsageError(`--output-version "${outputVersion}": give group/version (or v1 for the core group)`, 'convert');
    const entry = served?.get(group);
    if (served && !entry?.versions.has(version)) {
      throw new UsageError(`--output-version "${outputVersion}": the server does not serve this version (served: ${[...(entry?.versions ?? [])].join(', ') || 'none of that group'})`, 'convert');
    }
  }
  const preferred = (group: string) => (served ? served.get(group)?.preferred : LOCAL_PREFERRED[group]);
  return objects.map((o) => convertObject(o, outputVersion, preferred));
}

export async function runConvert(ctx: CliContext, flags: ConvertFlags): Promise<void> {
  if (!flags.filename || flags.filename.length === 0) throw new UsageError('convert needs -f FILE (a file, a folder or - for stdin)', 'convert');
  const output = flags.output ?? 'yaml';
  if (output !== 'yaml' && output !== 'json') throw new UsageError(`-o "${output}": convert prints yaml or json`, 'convert');
  const manifests = await ctx.readManifests(flags.filename, flags.recursive);
  const served = flags.local ? undefined : await servedVersions(ctx);
  const converted = convertAll(manifests.map((m) => m.object), flags.outputVersion, served);
  await ctx.print(converted, ctx.outputFormat(output));
}

export const registerConvert: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('convert')
    .description('rewrite manifests into another served version of their kind (HorizontalPodAutoscaler, flow control, Event)')
    .option('-f, --filename <file...>', 'files, folders or - (stdin) holding the objects to convert')
    .option('-R, --recursive', 'read folders given to -f recursively')
    .option('--output-version <group/version>', 'the version to convert to (default: the preferred version of each object\'s group)')
    .option('--local', 'do not contact the server: convert with the built-in table and its preferred versions')
    .option('-o, --output <format>', 'yaml (the default) or json')
    .action((flags: ConvertFlags) => runConvert(ctx, flags));
};
