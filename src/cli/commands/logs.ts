/**
 * `orchctl logs POD`: the pod's `log` subresource, printed as it arrives; `-f` keeps the stream open until
 * the server ends it.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Command } from 'commander';
import { parseGoDuration } from '../../util/duration.js';
import type { CliContext, RegisterCommand } from '../contract.js';

interface LogsFlags {
  container?: string;
  follow?: boolean;
  tail?: string;
  timestamps?: boolean;
  previous?: boolean;
  since?: string;
  sinceTime?: string;
  limitBytes?: string;
}

/** Pure: the pod a `logs` argument names (`NAME`, `pod/NAME`, `pods/NAME`, `po/NAME`). */
export function podNameOf(arg: string): string {
  const slash = arg.indexOf('/');
  if (slash < 0) return arg;
  const type = arg.slice(0, slash).toLowerCase();
  if (type !== 'pod' && type !== 'pods' && type !== 'po') throw new Error(`logs reads the log of a pod; "${arg}" names a ${type}: name one of its pods`);
  return arg.slice(slash + 1);
}

/** Pure: the log request's query from the flags, as the server names its options. */
export function logQuery(f: LogsFlags): Record<string, string | number | boolean | undefined> {
  const q: Record<string, string | number | boolean | undefined> = { container: f.container };
  if (f.follow) q.follow = true;
  if (f.timestamps) q.timestamps = true;
  if (f.previous) q.previous = true;
  // The reference's default of -1 means "every line".
  if (f.tail !== undefined) {
    if (!/^-?\d+$/.test(f.tail)) throw new Error(`invalid --tail "${f.tail}": a number of lines, or -1 for all`);
    if (Number(f.tail) >= 0) q.tailLines = Number(f.tail);
  }
  if (f.since !== undefined && f.sinceTime !== undefined) throw new Error('--since and --since-time cannot both be given');
  if (f.since !== undefined) {
    const ms = parseGoDuration(f.since);
    if (ms === undefined || ms <= 0) throw new Error(`invalid --since "${f.since}": a positive duration such as 10s or 5m`);
    q.sinceSeconds = Math.max(1, Math.ceil(ms / 1000));
  }
  if (f.sinceTime !== undefined) {
    if (Number.isNaN(Date.parse(f.sinceTime))) throw new Error(`invalid --since-time "${f.sinceTime}": an RFC 3339 time`);
    q.sinceTime = f.sinceTime;
  }
  if (f.limitBytes !== undefined) {
    if (!/^\d+$/.test(f.limitBytes) || Number(f.limitBytes) < 1) throw new Error(`invalid --limit-bytes "${f.limitBytes}": a positive number of bytes`);
    q.limitBytes = Number(f.limitBytes);
  }
  return q;
}

export async function runLogs(ctx: CliContext, args: string[], flags: LogsFlags): Promise<void> {
  const [first, second, ...rest] = args;
  if (!first) throw new Error('logs needs a pod: logs POD [-c CONTAINER]');
  if (rest.length > 0 || (second !== undefined && flags.container !== undefined)) throw new Error('logs takes one pod and at most one container (as -c or a second argument)');
  const query = logQuery({ ...flags, container: flags.container ?? second });
  const client = await ctx.client();
  const pods = client.resource({ group: '', version: 'v1', plural: 'pods' }, await ctx.namespace());
  const path = pods.path(podNameOf(first), 'log');
  // open() throws the server's Status for an error answer; a 2xx answer is streamed through as text.
  const { stream } = await client.transport.open({ method: 'GET', path, query, accept: '*/*' });
  const text = new StringDecoder('utf8');
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (c: Buffer) => ctx.io.out(text.write(c)));
    stream.once('end', () => {
      const tail = text.end();
      if (tail) ctx.io.out(tail);
      resolve();
    });
    stream.once('error', reject);
  });
}

export const registerLogs: RegisterCommand = (program: Command, ctx: CliContext) => {
  program
    .command('logs')
    .description("Print the log of a pod's container")
    .argument('<args...>', 'POD (or pod/POD), then optionally the container')
    .option('-c, --container <name>', 'the container (needed when the pod has several)')
    .option('-f, --follow', 'keep printing new lines until the stream ends')
    .option('--tail <lines>', 'only the last this many lines (-1: all)')
    .option('--timestamps', 'prefix each line with its time')
    .option('-p, --previous', "the log of the container's previous run")
    .option('--since <duration>', 'only lines newer than this (e.g. 10s, 5m)')
    .option('--since-time <time>', 'only lines from this RFC 3339 time on')
    .option('--limit-bytes <bytes>', 'stop after this many bytes')
    .action((args: string[], flags: LogsFlags) => runLogs(ctx, args, flags));
};
