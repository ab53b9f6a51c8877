import type { Command } from 'commander';

/**
 * The one `create` command: `create -f` and the `create <kind>` generators live in different files, and
 * each adds itself to this parent, whichever registers first.
 */
export function createCommand(program: Command): Command {
  const existing = program.commands.find((c) => c.name() === 'create');
  if (existing) return existing;
  return program.command('create').description('Create objects from files or from command-line arguments');
}
