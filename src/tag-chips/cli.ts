// `tapproof tags import` and `tapproof emulator …`.
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { CliError, output, parseMode, program, withContext } from '../cli.js';
import { createEmulatedChip, setTamper, tap } from '../emulator/service.js';
import { PROTOCOLS } from '../tags/rules.js';
import { importChips } from './import.js';

const tags = program.commands.find((c) => c.name() === 'tags') ?? program.command('tags').description('manage tags');
tags
  .command('import')
  .description('import chips written elsewhere (JSON array, entry format in DESIGN.md §4); all or nothing')
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

const emulator = program.command('emulator').description('software chips behind sandbox tags');
emulator
  .command('create')
  .description('make an emulated chip with derived keys and its configured sandbox tag')
  .requiredOption('--team <team_id>', 'team the sandbox tag belongs to')
  .requiredOption('--url <url>', 'the tag url')
  .requiredOption('--protocol <protocol>', PROTOCOLS.join(' | '))
  .option('--crypto <crypto>', 'aes or lrp (NTAG 424 chips)', (v) => {
    if (v !== 'aes' && v !== 'lrp') throw new InvalidArgumentError('must be aes or lrp');
    return v;
  })
  .option('--comment <comment>', 'tag comment')
  .option('--session-duration <seconds>', 'tag session_duration', (v) => {
    if (!/^\d+$/.test(v)) throw new InvalidArgumentError('must be a whole number of seconds');
    return Number(v);
  })
  .option('--json', 'machine-readable output')
  .action(async (opts) => {
    const chip = await withContext((ctx) =>
      createEmulatedChip(ctx, { teamId: opts.team, url: opts.url, protocol: opts.protocol, crypto: opts.crypto, comment: opts.comment, sessionDuration: opts.sessionDuration }),
    );
    output(opts.json, { id: chip.id }, `created configured sandbox tag ${chip.id} on an emulated chip`);
  });
emulator
  .command('tap <tag_id>')
  .description('tap the emulated chip: prints the URL a phone would open (the counter goes up)')
  .option('--json', 'machine-readable output')
  .action(async (tagId: string, opts) => {
    const result = await withContext((ctx) => tap(ctx, tagId));
    output(opts.json, result, result.url);
  });
emulator
  .command('tamper <tag_id> <state>')
  .description('open or close the tamper loop of an emulated NTAG 424 DNA TagTamper chip')
  .option('--json', 'machine-readable output')
  .action(async (tagId: string, state: string, opts) => {
    if (state !== 'open' && state !== 'closed') throw new CliError('state must be open or closed');
    const tamper = await withContext((ctx) => setTamper(ctx, tagId, state));
    output(opts.json, { id: tagId, tamper }, `tamper loop of ${tagId}: permanent ${tamper.permanent}, current ${tamper.current}`);
  });
