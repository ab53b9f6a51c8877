/**
 * What the write commands share about reporting: `--dry-run` values, the action lines and `-o` output of
 * the objects they wrote, and per-object errors. A command working on several objects goes on after one
 * fails, as the reference does, then exits 1 once all are done.
 */
import { StatusError } from '../../errors/index.js';
import type { KubeObject, ResourceInfo } from '../../client/index.js';
import type { CliContext, OutputFormat } from '../contract.js';
import { errorText, ExitCode } from '../errors.js';

export type DryRun = 'none' | 'client' | 'server';

/** Pure: `--dry-run` as given (absent, bare, or a value) to a strategy. */
export function parseDryRun(value: string | boolean | undefined): DryRun {
  if (value === undefined || value === false || value === 'none') return 'none';
  // A bare `--dry-run` meant client-side dry run in older clients; kept for existing scripts.
  if (value === true || value === 'client') return 'client';
  if (value === 'server') return 'server';
  throw new Error(`invalid --dry-run value "${String(value)}": use "none", "server" or "client"`);
}

/** The suffix the reference puts after an action when nothing was persisted. */
export const dryRunSuffix = (d: DryRun): string => (d === 'client' ? ' (dry run)' : d === 'server' ? ' (server dry run)' : '');

/** Pure: the line printed for a failure, as the reference client prints it (naming the file being written). */
export function errorLine(e: unknown, doing?: string): string {
  if (!doing) return errorText(e);
  if (e instanceof StatusError && e.reason !== 'Invalid') return `Error from server (${e.reason}): error when ${doing}: ${e.message}`;
  return `${errorText(e)} (when ${doing})`;
}

/** The exit of a command whose errors were all printed already. */
export const reportedFailure = () => new ExitCode(1);

/** Collects the results of a command over many objects, prints them, and fails at the end if any failed. */
export class Reporter {
  private failures = 0;
  private readonly collected: KubeObject[] = [];
  readonly format: OutputFormat | undefined;

  constructor(
    private readonly ctx: CliContext,
    output: string | undefined,
    readonly dryRun: DryRun = 'none',
  ) {
    this.format = output === undefined || output === '' ? undefined : ctx.outputFormat(output);
  }

  /** One object written: an action line, its `-o name` line, or kept for one yaml/json/jsonpath print. */
  done(obj: KubeObject, action: string, info: Pick<ResourceInfo, 'plural' | 'group'>): void {
    const f = this.format;
    if (f === undefined || f.kind === 'name' || f.kind === 'table') this.ctx.printAction(obj, `${action}${dryRunSuffix(this.dryRun)}`, info, f);
    else this.collected.push(obj);
  }

  /** A plain line (the reference's `pod "x" deleted` form and other messages). */
  line(text: string): void {
    this.ctx.io.out(`${text}\n`);
  }

  fail(e: unknown, doing?: string): void {
    this.failures++;
    this.ctx.io.err(`${errorLine(e, doing)}\n`);
  }

  get failed(): number {
    return this.failures;
  }

  /** Prints what was kept for `-o yaml|json|...`, then throws when anything failed. */
  async finish(): Promise<void> {
    if (this.format && this.collected.length > 0) await this.ctx.print(this.collected, this.format, { asList: this.collected.length > 1 });
    if (this.failures > 0) throw reportedFailure();
  }
}

/** Pure: `--validate` (the reference's values) to the server's `fieldValidation`. */
export function parseValidate(value: string | boolean | undefined): 'Strict' | 'Warn' | 'Ignore' {
  const v = value === undefined || value === true ? 'strict' : value === false ? 'false' : value.toLowerCase();
  if (v === 'strict' || v === 'true') return 'Strict';
  if (v === 'warn') return 'Warn';
  if (v === 'ignore' || v === 'false') return 'Ignore';
  throw new Error(`invalid --validate value "${String(value)}": use strict, warn, ignore, true or false`);
}
