/**
 * The seam between orchctl's program (global flags, configuration, output, errors: src/cli/main.ts and
 * src/cli/output/) and its commands (src/cli/commands/<command>.ts, each registering itself).
 */
import type { Command } from 'commander';
import type { Client } from '../client/index.js';
import type { KubeObject } from '../client/index.js';

/** Where a command reads and writes; tests pass buffers. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** The whole standard input (for `-f -`). */
  readStdin(): Promise<string>;
  /** Whether stdin/stdout are terminals (interactive exec plugins, `edit`, progress output). */
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  env: NodeJS.ProcessEnv;
}

/** Output formats of `-o` (spec and the reference client's spellings). */
export type OutputFormat =
  | { kind: 'table'; wide: boolean; showLabels?: boolean; noHeaders?: boolean; labelColumns?: string[] }
  | { kind: 'yaml' }
  | { kind: 'json' }
  | { kind: 'name' }
  | { kind: 'jsonpath'; template: string }
  | { kind: 'custom-columns'; spec: string };

/** What every command gets: resolved lazily, so `--help` and `config` commands need no server. */
export interface CliContext {
  io: CliIO;
  /** The client of the selected context (global flags applied); created on first use. */
  client(): Promise<Client>;
  /** `--namespace`, else the context's namespace, else `default`. */
  namespace(): Promise<string>;
  /** Global flag values as given (`kubeconfig`, `context`, `namespace`, `server`, `token`, `requestTimeout`, ...). */
  globals(): Record<string, unknown>;
  /**
   * Parses `-o` (and `--no-headers`, `--show-labels`, `-L`) into a format; undefined `-o` = the command's default.
   * Throws a usage error for an unknown format.
   */
  outputFormat(o: string | undefined, extra?: { noHeaders?: boolean; showLabels?: boolean; labelColumns?: string[] }): OutputFormat;
  /**
   * Prints objects in `format`: a table (asked from the server as Table when `table` is given, else built
   * from metadata), yaml/json (one object, or a `List` when there are several or `asList`), `-o name`
   * lines (`<resource>[.<group>]/<name>`), jsonpath, custom-columns.
   */
  print(objects: KubeObject[], format: OutputFormat, opts?: { asList?: boolean; resource?: { plural: string; group: string } }): Promise<void>;
  /** A short success line as the reference prints it (`deployment.apps/web created`), or the `-o name` form. */
  printAction(obj: KubeObject, action: string, resource: { plural: string; group: string }, format?: OutputFormat): void;
  /** Reads `-f` arguments (files, folders with `-R`, `-`, URLs not required) into objects, with file/document names for errors. */
  readManifests(paths: string[], recursive?: boolean): Promise<{ source: string; object: KubeObject }[]>;
}

/** Each command file exports one `register` function; `src/cli/commands/index.ts` lists them. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;
