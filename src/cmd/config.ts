/**
 * `orch-config validate FILE...`: checks configuration documents the way the components would at start-up.
 * Prints `FILE: ok` for a good file, or one line per problem (file, document number, kind, field path).
 * Exit status: 0 when every file is valid, 1 when any is not, 2 for a usage error.
 */
import { readFileSync } from 'node:fs';
import { validateDocument } from './config-validate.js';

export const CONFIG_USAGE = `Usage: orch-config validate FILE...

Checks component configuration documents (YAML or JSON; several per file with ---):
AdmissionConfiguration, EventRateLimit Configuration, EncryptionConfiguration, AuthenticationConfiguration,
AuthorizationConfiguration, audit Policy, EgressSelectorConfiguration, TracingConfiguration,
and the scheduler, proxy and controller manager configurations.

Exit status: 0 all valid, 1 a file is invalid or unreadable, 2 usage error.
`;

export interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Runs the command; answers the exit status. */
export function runConfigCommand(args: readonly string[], io: Output): number {
  const [command, ...rest] = args;
  if (command === '-h' || command === '--help' || command === 'help') {
    io.out(CONFIG_USAGE);
    return 0;
  }
  if (command !== 'validate') {
    io.err(command === undefined ? 'orch-config: a command is required' : `orch-config: unknown command ${JSON.stringify(command)}`);
    io.err(CONFIG_USAGE);
    return 2;
  }
  const files = rest.filter((a) => a !== '--');
  const flag = rest.find((a) => a.startsWith('-') && a !== '--' && a !== '-');
  if (flag !== undefined) {
    io.err(`orch-config validate: unknown flag ${flag}`);
    io.err(CONFIG_USAGE);
    return 2;
  }
  if (files.length === 0) {
    io.err('orch-config validate: name at least one FILE');
    io.err(CONFIG_USAGE);
    return 2;
  }
  let failed = false;
  for (const file of files) {
    if (!validateFile(file, io)) failed = true;
  }
  return failed ? 1 : 0;
}

/** Checks one file and prints its result; answers whether it is valid. */
function validateFile(file: string, io: Output): boolean {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    io.out(`${file}: cannot be read: ${(e as Error).message}`);
    return false;
  }
  const results = validateDocument(text, file === '-' ? '' : file);
  let ok = true;
  for (const r of results) {
    const where = `${file}: document ${r.index + 1}${r.kind ? ` (${r.kind})` : ''}`;
    for (const w of r.warnings) io.out(`${where}: warning: ${w}`);
    for (const e of r.errors) io.out(`${where}: ${e}`);
    if (r.errors.length > 0) ok = false;
  }
  if (ok) io.out(`${file}: ok`);
  return ok;
}
