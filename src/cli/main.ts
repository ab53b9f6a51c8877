/**
 * orchctl, the command-line client: global flags (which kubeconfig, context, cluster, user, namespace,
 * server overrides, impersonation, request timeout, verbosity), then one of the commands of
 * commands/index.ts. `runCli` is the whole program with its I/O passed in (tests run it in-process).
 */
import { Command, Option } from 'commander';
import { COMMANDS } from './commands/index.js';
import { DefaultCliContext, type GlobalFlags } from './context.js';
import type { CliIO } from './contract.js';
import { reportError, UsageError } from './errors.js';

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** `-v 6`, `-v=6` (commander hands the short form `=6`), `--v=6`. */
export function parseVerbosity(value: string): number {
  const text = value.startsWith('=') ? value.slice(1) : value;
  if (!/^\d+$/.test(text)) throw new UsageError(`-v: invalid level "${value}": give a whole number (6 logs every request)`);
  return Number(text);
}

/** The program with its global flags and every command registered. */
export function buildProgram(io: CliIO): { program: Command; ctx: DefaultCliContext } {
  const program = new Command('orchctl');
  const ctx = new DefaultCliContext(io, () => program.opts<GlobalFlags>());
  program
    .description('orchctl controls an orch API server: read, write and inspect its objects')
    .usage('[flags] <command> [arguments]')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .showSuggestionAfterError()
    .allowExcessArguments(false)
    .option('--kubeconfig <file>', 'the kubeconfig file to use (instead of $ORCHCONFIG or ~/.orch/config)')
    .option('--context <name>', 'the kubeconfig context to use')
    .option('--cluster <name>', 'the kubeconfig cluster to use')
    .option('--user <name>', 'the kubeconfig user to use')
    .option('-n, --namespace <name>', 'the namespace of this request')
    .option('-s, --server <url>', 'the address of the API server')
    .option('--token <token>', 'a bearer token to authenticate with')
    .option('--certificate-authority <file>', 'a PEM file of certificate authorities to trust for the server')
    .option('--insecure-skip-tls-verify', 'do not check the server certificate (unsafe)')
    .option('--tls-server-name <name>', 'the server name to check the server certificate against')
    .option('--request-timeout <duration>', 'how long to wait for one answer (e.g. 10s, 1m; 0 = no limit)')
    .option('--as <user>', 'the user to impersonate')
    .option('--as-group <group>', 'a group to impersonate (repeatable)', collect)
    .option('--as-uid <uid>', 'the UID to impersonate')
    .addOption(new Option('-v, --v <level>', 'log level: 6 logs every request, 8 also response bodies').argParser(parseVerbosity));
  for (const register of COMMANDS) register(program, ctx);
  return { program, ctx };
}

/** Runs orchctl with `argv` (without the node and script names); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const { program, ctx } = buildProgram(io);
  try {
    if (argv.length === 0) {
      io.out(program.helpInformation());
      return 0;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (e) {
    return reportError(e, (t) => io.err(t));
  } finally {
    ctx.close();
  }
}

/** The process's own I/O. */
export function processIO(): CliIO {
  return {
    out: (t) => void process.stdout.write(t),
    err: (t) => void process.stderr.write(t),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    env: process.env,
  };
}

/** Entry of bin/orchctl.js: run, flush, exit with the code. */
export async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2), processIO());
  process.exitCode = code;
}
