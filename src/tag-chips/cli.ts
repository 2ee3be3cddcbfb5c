// `tapproof tags import`: chips written elsewhere, with their keys.
// `tapproof tags tap`: the URL such a chip (or a written or emulated one) opens at a counter.
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { commandGroup, output, parseMode } from '../cli-kit.js';
import type { WithContext } from '../cli-kit.js';
import type { Kernel } from '../kernel.js';
import type { MastersState } from '../master-keys/index.js';
import type { Command } from 'commander';
import { problem } from '../errors.js';
import { ChipImportServiceError, importChips, type ChipImportState } from './import.js';
import { MAX_COUNTER, tapAt } from './tap.js';
import { cliActor } from '../audit/index.js';

export function registerTagChipCommands(program: Command, withContext: WithContext<Kernel & MastersState & ChipImportState>): void {
  const tags = commandGroup(program, 'tags', 'manage tags');
  tags
    .command('import')
    .description('import chips written elsewhere (JSON array, entry format in docs/decisions.md §4); all or nothing: a refusal names each entry counted from 1')
    .requiredOption('--team <team_id>', 'team the tags belong to')
    .requiredOption('--mode <mode>', 'sandbox or production', parseMode)
    .requiredOption('--file <path>', 'chips.json')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      let ids: string[];
      try {
        let entries: unknown;
        try {
          entries = JSON.parse(readFileSync(opts.file, 'utf8'));
        } catch (error) {
          throw new ChipImportServiceError([problem('', `cannot read ${opts.file} as JSON: ${(error as Error).message}`)]);
        }
        ids = await withContext((ctx) => importChips(ctx, { teamId: opts.team, mode: opts.mode, actor: cliActor() }, entries));
      } catch (error) {
        // Under --json the refusal is also a document on stdout: each problem with its entry (from 1) and field.
        if (opts.json && error instanceof ChipImportServiceError) {
          output(
            true,
            { ok: false, refused: 'nothing imported', errors: error.fields.map((f) => ({ entry: f.index ?? null, field: f.path || null, detail: f.detail })) },
            '',
          );
        }
        throw error;
      }
      output(opts.json, ids, ids.map((id) => `imported ${id} (configured)`).join('\n'));
    });
  tags
    .command('tap')
    .description("print the URL the tag's chip opens at a counter, computed from its keys (test a backend without hardware)")
    .requiredOption('--tag <tag_id>', 'a tag with a chip: written, imported or emulated')
    .requiredOption('--team <team_id>', 'team the tag belongs to')
    .requiredOption('--counter <n>', `SDMReadCtr of the tap, 0 to ${MAX_COUNTER}`, (v) => {
      if (!/^\d+$/.test(v) || Number(v) > MAX_COUNTER) throw new InvalidArgumentError(`must be a whole number from 0 to ${MAX_COUNTER}`);
      return Number(v);
    })
    .option('--mode <mode>', 'sandbox or production', parseMode, 'sandbox')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const url = await withContext((ctx) => tapAt(ctx, { teamId: opts.team, mode: opts.mode }, opts.tag, opts.counter));
      output(opts.json, { url, counter: opts.counter }, url);
    });
}
