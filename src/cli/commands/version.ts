/**
 * `orchctl version`: this client's version and, unless `--client`, the server's (`/version`). The client's
 * is read from this package's package.json, spelled like the server's (API level, package version as build
 * metadata), since the CLI may not import the server's code.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { PACKAGE_NAME } from '../../api/naming.js';
import type { CliContext, RegisterCommand } from '../contract.js';
import { UsageError } from '../errors.js';
import { toJson, toYaml } from '../output/formats.js';

/** The API level this client speaks (the same as the server's). */
const API_LEVEL = { major: '1', minor: '31' } as const;

export interface ClientVersion {
  major: string;
  minor: string;
  gitVersion: string;
  compiler: string;
  platform: string;
}

/** The version of the package this file belongs to ('' when its package.json cannot be found). */
export function packageVersion(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: keep climbing
    }
    if (dirname(dir) === dir) return '';
  }
}

export function clientVersion(): ClientVersion {
  const v = packageVersion();
  return {
    ...API_LEVEL,
    gitVersion: v ? `v${API_LEVEL.major}.${API_LEVEL.minor}.0+${PACKAGE_NAME}.${v}` : '',
    compiler: `node ${process.version}`,
    platform: `${process.platform}/${process.arch}`,
  };
}

export const registerVersion: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('version')
    .description("Print this client's version and the server's")
    .option('--client', "only the client's version (no server needed)")
    .option('-o, --output <format>', 'yaml or json')
    .action(async (_o: unknown, cmd: Command) => {
      const o = cmd.opts<{ client?: boolean; output?: string }>();
      if (o.output !== undefined && o.output !== 'yaml' && o.output !== 'json') throw new UsageError(`--output must be yaml or json, not "${o.output}"`, 'version');
      const doc: Record<string, unknown> = { clientVersion: clientVersion() };
      let serverError: unknown;
      if (!o.client) {
        try {
          const client = await ctx.client();
          doc.serverVersion = await client.transport.json({ method: 'GET', path: '/version' });
        } catch (e) {
          serverError = e;
        }
      }
      if (o.output === 'json') ctx.io.out(toJson(doc));
      else if (o.output === 'yaml') ctx.io.out(toYaml(doc));
      else {
        ctx.io.out(`Client Version: ${(doc.clientVersion as ClientVersion).gitVersion}\n`);
        if (doc.serverVersion) ctx.io.out(`Server Version: ${(doc.serverVersion as { gitVersion?: string }).gitVersion ?? ''}\n`);
      }
      // As the reference: the client's version is printed, then the server problem fails the command.
      if (serverError) throw serverError;
    });
};
