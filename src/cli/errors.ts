/**
 * How orchctl reports a failure and which exit code it ends with: a server Status reads as the reference
 * client prints it (`Error from server (NotFound): ...`), anything else as `error: ...`; every failure
 * exits 1.
 */
import { CommanderError } from 'commander';
import { StatusError } from '../errors/index.js';
import { RequestTimeoutError } from '../client/index.js';

/** A problem with the command line itself (unknown format, missing argument); printed with a help hint. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    /** The command path for the hint (`get`, `config view`); none = no hint. */
    readonly command?: string,
  ) {
    super(message);
  }
}

/**
 * Output already printed and only the exit code is left to give (several names of which some failed, as
 * `get a b` with one missing prints what it found and then the errors).
 */
export class ExitCode extends Error {
  override readonly name = 'ExitCode';
  constructor(readonly code: number) {
    super(`exit code ${code}`);
  }
}

/** The text of an Invalid Status with causes: `The <Kind> "<name>" is invalid: ...`, one cause per line when several. */
function invalidText(e: StatusError): string | undefined {
  const d = e.details;
  if (!d || !d.kind || !d.name) return undefined;
  const causes = (d.causes ?? []).filter((c) => c.message);
  if (causes.length === 0) return undefined;
  const one = (c: { field?: string; message?: string }) => (c.field ? `${c.field}: ${c.message}` : `${c.message}`);
  const list = causes.length === 1 ? one(causes[0]!) : `\n${causes.map((c) => `* ${one(c)}`).join('\n')}`;
  return `The ${d.kind} "${d.name}" is invalid: ${list}`;
}

/** The line(s) orchctl prints for an error (no trailing newline). */
export function errorText(e: unknown): string {
  if (e instanceof StatusError) {
    if (e.reason === 'Invalid') {
      const text = invalidText(e);
      if (text) return text;
    }
    if (e.code === 401) return `error: You must be logged in to the server (${e.message || 'Unauthorized'})`;
    return e.reason ? `Error from server (${e.reason}): ${e.message}` : `Error from server: ${e.message}`;
  }
  if (e instanceof RequestTimeoutError) return `error: the request timed out: ${e.message}`;
  if (e instanceof UsageError) return e.command ? `error: ${e.message}\nSee 'orchctl ${e.command} --help' for usage.` : `error: ${e.message}`;
  if (e instanceof Error) {
    // Connection failures read as the reference client's: name the server that could not be reached.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') {
      return `error: the connection to the server was refused or unreachable (${e.message}): is the address right and the server running?`;
    }
    return `error: ${e.message}`;
  }
  return `error: ${String(e)}`;
}

/**
 * The exit code for a thrown value, after printing its text to `err` (nothing for commander's own exits,
 * which have printed already, or for ExitCode).
 */
export function reportError(e: unknown, err: (text: string) => void): number {
  if (e instanceof ExitCode) return e.code;
  if (e instanceof CommanderError) {
    // Help and version displays exit 0; commander has written its own message for usage problems.
    return e.exitCode;
  }
  err(`${errorText(e)}\n`);
  return 1;
}
