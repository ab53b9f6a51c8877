/** `orchctl annotate`: sets (`KEY=VALUE`) and removes (`KEY-`) annotations; `--overwrite` to change a value. */
import type { Command } from 'commander';
import type { CliContext, RegisterCommand } from '../contract.js';
import { mapCommandOptions, qualifiedKeyProblem, runMapCommand, type MapKind } from './label-core.js';

/** Annotation values are free text; only keys follow the qualified-name rule. The reference says "annotated" in every case. */
export const ANNOTATIONS: MapKind = {
  field: 'annotations',
  noun: 'annotation',
  verb: 'annotated',
  removedVerb: 'annotated',
  unchangedVerb: 'annotated',
  check: (key) => qualifiedKeyProblem(key),
};

export const registerAnnotate: RegisterCommand = (program: Command, ctx: CliContext) => {
  mapCommandOptions(program.command('annotate').description('Set or remove annotations of objects'), ANNOTATIONS).action((args: string[], flags) =>
    runMapCommand(ctx, ANNOTATIONS, args, flags),
  );
};
