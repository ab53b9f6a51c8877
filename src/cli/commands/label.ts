/** `orchctl label`: sets (`KEY=VALUE`) and removes (`KEY-`) labels; `--overwrite` to change a value. */
import type { Command } from 'commander';
import type { CliContext, RegisterCommand } from '../contract.js';
import { labelValueProblem, mapCommandOptions, qualifiedKeyProblem, runMapCommand, type MapKind } from './label-core.js';

export const LABELS: MapKind = {
  field: 'labels',
  noun: 'label',
  verb: 'labeled',
  removedVerb: 'unlabeled',
  unchangedVerb: 'not labeled',
  check: (key, value) => qualifiedKeyProblem(key) ?? (value === undefined ? undefined : labelValueProblem(value)),
};

export const registerLabel: RegisterCommand = (program: Command, ctx: CliContext) => {
  mapCommandOptions(program.command('label').description('Set or remove labels of objects'), LABELS).action((args: string[], flags) => runMapCommand(ctx, LABELS, args, flags));
};
