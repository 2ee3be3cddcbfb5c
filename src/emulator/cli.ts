// `tapproof emulator create|tap|tamper|reader`: software chips behind sandbox tags.
import { Argument, InvalidArgumentError } from 'commander';
import { CliError, output } from '../cli-kit.js';
import type { WithContext } from '../cli-kit.js';
import type { Kernel } from '../kernel.js';
import type { MastersState } from '../master-keys/index.js';
import type { Command } from 'commander';
import { Ntag424Card, VPCD_DEFAULT_HOST, VPCD_DEFAULT_PORT, vpcdReaderName } from '../chips/index.js';
import { loadConfig } from '../config.js';
import { PROTOCOLS } from '../tags/index.js';
import { createTags } from '../tags/index.js';
import { cliActor } from '../audit/index.js';
import * as teamsRepo from '../teams/index.js';
import { loadCard, saveCard } from '../writer/index.js';
import { LocalTransport } from '../writer/index.js';
import { WriterClient } from '../writer/index.js';
import { holdInReader, type HeldCard } from './reader.js';
import { createEmulatedChip, setTamper, tap } from './service.js';

export function registerEmulatorCommands(program: Command, withContext: WithContext<Kernel & MastersState>): void {
  const emulator = program.command('emulator').description('software chips behind sandbox tags');

  const parseCrypto = (v: string) => {
    if (v !== 'aes' && v !== 'lrp') throw new InvalidArgumentError('must be aes or lrp');
    return v;
  };
  emulator
    .command('create')
    .description('make an emulated chip with derived keys and its configured sandbox tag')
    .requiredOption('--team <team_id>', 'team the sandbox tag belongs to')
    .requiredOption('--url <url>', 'the tag url')
    .requiredOption('--protocol <protocol>', PROTOCOLS.join(' | '))
    .option('--crypto <crypto>', 'aes or lrp (NTAG 424 chips)', parseCrypto)
    .option('--comment <comment>', 'tag comment')
    .option('--session-duration <seconds>', 'tag session_duration', (v) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('must be a whole number of seconds');
      return Number(v);
    })
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      // NTAG 424 chips: a thin wrapper over the writer (docs/writer.md), so that sandbox chips are made the
      // way real ones are — the tag is created like the API does
      // and written onto a factory-blank software card in the data dir (switched to LRP for --crypto lrp)
      // by the same step machine a remote writer runs. The 223 (not writable) keeps the direct emulation.
      if (opts.protocol === 'ntag_424_dna' || opts.protocol === 'ntag_424_dna_tag_tamper') {
        const dataDir = loadConfig().dataDir;
        const id = await withContext(async (ctx) => {
          if (!(await teamsRepo.findTeam(ctx.db.kysely, opts.team))) throw new CliError(`no team ${opts.team}`);
          const world = { teamId: opts.team, mode: 'sandbox' as const, actor: cliActor() };
          const attributes: Record<string, unknown> = { protocol: opts.protocol, url: opts.url };
          if (opts.comment !== undefined) attributes.comment = opts.comment;
          if (opts.sessionDuration !== undefined) attributes.session_duration = opts.sessionDuration;
          const tagId = (await createTags(ctx, world, [attributes]))[0]!.id;
          const card = new Ntag424Card({ protocol: opts.protocol, lrp: opts.crypto === 'lrp' });
          const outcome = await new WriterClient(new LocalTransport(ctx, world)).write(tagId, { transmit: async (apdu) => Buffer.from(card.transmit(apdu)) });
          saveCard(dataDir, tagId, card);
          if (outcome.status !== 'configured')
            throw new CliError(`tag ${tagId} was created but the write failed: ${outcome.reason?.detail ?? outcome.refused?.detail}`);
          return tagId;
        });
        output(opts.json, { id }, `created configured sandbox tag ${id} on an emulated chip`);
        return;
      }
      const chip = await withContext((ctx) =>
        createEmulatedChip(ctx, {
          teamId: opts.team,
          url: opts.url,
          protocol: opts.protocol,
          crypto: opts.crypto,
          comment: opts.comment,
          sessionDuration: opts.sessionDuration,
          actor: cliActor(),
        }),
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
    .command('tamper')
    .description('open or close the tamper loop of an emulated NTAG 424 DNA TagTamper chip')
    .addArgument(new Argument('<tag_id>', 'the sandbox tag of the chip'))
    .addArgument(new Argument('<state>', 'the loop as the next tap reads it').choices(['open', 'closed']))
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
  emulator
    .command('reader <tag_id>')
    .description(
      "hold the tag's emulated chip in pcscd's virtual reader (vsmartcard-vpcd) until stopped, for `tapproof writer --reader pcsc` or any PC/SC program",
    )
    .option('--protocol <protocol>', 'a blank card of this protocol when the tag has no card yet: ntag_424_dna or ntag_424_dna_tag_tamper', (v) => {
      if (v !== 'ntag_424_dna' && v !== 'ntag_424_dna_tag_tamper') throw new InvalidArgumentError('must be ntag_424_dna or ntag_424_dna_tag_tamper');
      return v;
    })
    .option('--crypto <crypto>', 'aes or lrp: the blank card switched to LRP', parseCrypto)
    .option('--port <port>', `vpcd's port: ${VPCD_DEFAULT_PORT} is the reader "${vpcdReaderName()}", ${VPCD_DEFAULT_PORT + 1} the next`, (v) => {
      if (!/^\d{1,5}$/.test(v) || Number(v) < 1 || Number(v) > 65535) throw new InvalidArgumentError('must be a TCP port');
      return Number(v);
    })
    .option('--host <host>', "vpcd's host", VPCD_DEFAULT_HOST)
    .option('--json', 'machine-readable output: one line once the card is in the reader')
    .action(async (tagId: string, opts) => {
      if (!/^[A-Za-z0-9_]+$/.test(tagId)) throw new CliError(`not a tag id: ${tagId}`);
      const port: number = opts.port ?? VPCD_DEFAULT_PORT;
      let held: HeldCard;
      try {
        held = await holdInReader({
          dataDir: loadConfig().dataDir,
          tagId,
          protocol: opts.protocol ?? 'ntag_424_dna',
          lrp: opts.crypto === 'lrp',
          host: opts.host,
          port,
        });
      } catch (error) {
        throw new CliError((error as Error).message);
      }
      const reader = vpcdReaderName(port);
      let stopped = false;
      const stop = () => {
        stopped = true;
        void held.close();
      };
      process.once('SIGINT', stop).once('SIGTERM', stop);
      output(
        opts.json,
        { tag_id: tagId, reader, host: opts.host, port, blank: held.blank },
        `the emulated chip of ${tagId}${held.blank ? ' (factory-blank)' : ''} is in the reader "${reader}"\n` +
          `write it: tapproof writer --key KEY --reader pcsc --pcsc-reader '${reader}' ${tagId}\n` +
          'Ctrl-C takes it out (then `tapproof emulator tap` taps it)',
      );
      const how = await held.removed;
      process.off('SIGINT', stop).off('SIGTERM', stop);
      if (!stopped) throw new CliError(`the virtual reader let go of the card of ${tagId} (${how}; did pcscd stop?)`);
    });
}
