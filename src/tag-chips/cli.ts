// `tapproof tags import`: chips written elsewhere, with their keys.
import { readFileSync } from 'node:fs';
import { CliError, output, parseMode, program, withContext } from '../cli.js';
import { importChips } from './import.js';

const tags = program.commands.find((c) => c.name() === 'tags') ?? program.command('tags').description('manage tags');
tags
  .command('import')
  .description('import chips written elsewhere (JSON array, entry format in docs/decisions.md §4); all or nothing')
  .requiredOption('--team <team_id>', 'team the tags belong to')
  .requiredOption('--mode <mode>', 'sandbox or production', parseMode)
  .requiredOption('--file <path>', 'chips.json')
  .option('--json', 'machine-readable output')
  .action(async (opts) => {
    let entries: unknown;
    try {
      entries = JSON.parse(readFileSync(opts.file, 'utf8'));
    } catch (error) {
      throw new CliError(`cannot read ${opts.file} as JSON: ${(error as Error).message}`);
    }
    const ids = await withContext((ctx) => importChips(ctx, { teamId: opts.team, mode: opts.mode }, entries));
    output(opts.json, ids, ids.map((id) => `imported ${id} (configured)`).join('\n'));
  });
