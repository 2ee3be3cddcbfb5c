// `tapproof emulator create|tap|tamper`: software chips behind sandbox tags.
import { InvalidArgumentError } from 'commander';
import { CliError, output, program, withContext } from '../cli.js';
import { Ntag424Card } from '../chips/index.js';
import { loadConfig } from '../config.js';
import { PROTOCOLS } from '../tags/rules.js';
import { createTags } from '../tags/service.js';
import { findTeam } from '../teams/repository.js';
import { loadCard, saveCard } from '../writer/cards.js';
import { LocalTransport } from '../writer/local.js';
import { WriterClient } from '../writer/relay.js';
import { createEmulatedChip, setTamper, tap } from './service.js';

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
    // NTAG 424 chips: a thin wrapper over the writer (issue #8) — the tag is created like the API does
    // and written onto a factory-blank software card in the data dir (switched to LRP for --crypto lrp)
    // by the same step machine a remote writer runs. The 223 (not writable) keeps the direct emulation.
    if (opts.protocol === 'ntag_424_dna' || opts.protocol === 'ntag_424_dna_tag_tamper') {
      const dataDir = loadConfig().dataDir;
      const id = await withContext(async (ctx) => {
        if (!(await findTeam(ctx.db.kysely, opts.team))) throw new CliError(`no team ${opts.team}`);
        const world = { teamId: opts.team, mode: 'sandbox' as const };
        const attributes: Record<string, unknown> = { protocol: opts.protocol, url: opts.url };
        if (opts.comment !== undefined) attributes.comment = opts.comment;
        if (opts.sessionDuration !== undefined) attributes.session_duration = opts.sessionDuration;
        const tagId = (await createTags(ctx, world, [attributes]))[0]!.id;
        const card = new Ntag424Card({ protocol: opts.protocol, lrp: opts.crypto === 'lrp' });
        const outcome = await new WriterClient(new LocalTransport(ctx, world)).write(tagId, { transmit: async (apdu) => Buffer.from(card.transmit(apdu)) });
        saveCard(dataDir, tagId, card);
        if (outcome.status !== 'configured') throw new CliError(`tag ${tagId} was created but the write failed: ${outcome.reason?.detail ?? outcome.refused?.detail}`);
        return tagId;
      });
      output(opts.json, { id }, `created configured sandbox tag ${id} on an emulated chip`);
      return;
    }
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
    // A card written by the writer lives in the data dir; older emulated chips in the database.
    const dataDir = loadConfig().dataDir;
    const card = /^[A-Za-z0-9_]+$/.test(tagId) ? loadCard(dataDir, tagId) : null;
    if (card !== null) {
      const url = card.tap();
      saveCard(dataDir, tagId, card);
      output(opts.json, { url, counter: card.sdmReadCtr }, url);
      return;
    }
    const result = await withContext((ctx) => tap(ctx, tagId));
    output(opts.json, result, result.url);
  });
emulator
  .command('tamper <tag_id> <state>')
  .description('open or close the tamper loop of an emulated NTAG 424 DNA TagTamper chip')
  .option('--json', 'machine-readable output')
  .action(async (tagId: string, state: string, opts) => {
    if (state !== 'open' && state !== 'closed') throw new CliError('state must be open or closed');
    const dataDir = loadConfig().dataDir;
    const card = /^[A-Za-z0-9_]+$/.test(tagId) ? loadCard(dataDir, tagId) : null;
    if (card !== null) {
      if (card.protocol !== 'ntag_424_dna_tag_tamper') throw new CliError(`tag ${tagId} is not an NTAG 424 DNA TagTamper chip`);
      const tamper = card.tamper(state);
      saveCard(dataDir, tagId, card);
      output(opts.json, { id: tagId, tamper }, `tamper loop of ${tagId}: permanent ${tamper.permanent}, current ${tamper.current}`);
      return;
    }
    const tamper = await withContext((ctx) => setTamper(ctx, tagId, state));
    output(opts.json, { id: tagId, tamper }, `tamper loop of ${tagId}: permanent ${tamper.permanent}, current ${tamper.current}`);
  });
