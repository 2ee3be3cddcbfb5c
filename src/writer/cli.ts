// `tapproof writer`: writes created tags onto chips through the server's /writer routes, like any
// remote writer (HTTP and an API key, no database, no chip key), relaying APDUs to an emulated
// card kept in the data dir or to a PC/SC reader.
import { InvalidArgumentError } from 'commander';
import { CliError, output } from '../cli-kit.js';
import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { Ntag424Card } from '../chips/index.js';
import { cardPath, loadCard, saveCard } from './cards.js';
import { connectPcsc, PcscUnavailableError, type PcscCard } from './pcsc.js';
import { fetchFrom, HttpTransport, ServerUnreachableError, WriterClient, type WriteOutcome } from './relay.js';

/** `https://host`, `https://host/`, `https://host/api/v1` or `https://host/api/v1/` → `https://host/api/v1`. */
export function apiBaseOf(server: string, apiPrefix: string): string {
  const trimmed = server.replace(/\/+$/, '');
  return trimmed.endsWith(apiPrefix) ? trimmed : trimmed + apiPrefix;
}

/**
 * Whether a phone that taps the chip can open `url`: an http(s) URL with a host, written as such (a
 * phone reads the NDEF record as it stands, without a browser's fixing up of spaces or a missing `//`).
 */
export function phoneCanOpen(url: string): boolean {
  if (!/^https?:\/\//i.test(url) || /[\s\p{Cc}]/u.test(url)) return false;
  try {
    return new URL(url).hostname !== '';
  } catch {
    return false;
  }
}

async function getJson(base: string, key: string, path: string): Promise<{ status: number; body: any }> {
  const r = await fetchFrom(base, path, { headers: { authorization: `Bearer ${key}`, accept: 'application/vnd.api+json' } });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

/** Ids of the key's world's tags still `created` (paged through the list route). */
async function allCreated(base: string, key: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const r = await getJson(base, key, `/tags?page=${page}&page_size=100`);
    if (r.status !== 200) throw new CliError(`listing tags: HTTP ${r.status}`);
    const rows = r.body.data as { id: string; attributes: { status: string } }[];
    ids.push(...rows.filter((t) => t.attributes.status === 'created').map((t) => t.id));
    if (rows.length < 100) return ids;
  }
}

/** A server that did not answer, as one line that says where its address came from. */
function cannotReach(serverGiven: boolean): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof ServerUnreachableError)) throw error;
    const hint = serverGiven ? 'check --server' : 'set --server to its address (or PORT, for a server on this machine)';
    throw new CliError(`${error.message}; ${hint}`);
  };
}

export function registerWriterCommands(program: Command): void {
  program
    .command('writer')
    .description('write created tags onto chips, or rekey configured ones, through the server (the server keeps every key; this only relays APDUs)')
    .argument('[tag_ids...]', 'tags to write')
    .requiredOption('--key <key>', "an API key of the tags' team and mode")
    .option(
      '--reader <reader>',
      'emulator (a software card per tag in the data dir) or pcsc',
      (v) => {
        if (v !== 'emulator' && v !== 'pcsc') throw new InvalidArgumentError('must be emulator or pcsc');
        return v;
      },
      'emulator',
    )
    .option('--server <url>', "the server's origin, with or without the API prefix (default http://127.0.0.1:PORT of this configuration)")
    .option('--pcsc-reader <name>', 'PC/SC reader name (default: the first reader with a card)')
    .option('--all-created', "every created tag of the key's team and mode")
    .option('--rekey', 'move the chips of configured tags to new keys (the chip keeps its counter; docs/writer.md)')
    .option('--json', 'machine-readable output (one JSON object per tag, then none on the terminal)')
    .action(async (tagIds: string[], opts) => {
      const config = loadConfig();
      const base = apiBaseOf(opts.server ?? `http://127.0.0.1:${config.port}`, config.apiPrefix);
      if (!/^https?:\/\/[^/]/i.test(base)) throw new CliError(`--server must be an http(s) URL, not ${JSON.stringify(opts.server)}`);
      const reach = cannotReach(opts.server !== undefined);
      if (opts.rekey && opts.allCreated) throw new CliError('--rekey takes tag ids, not --all-created');
      const operation = opts.rekey ? 'rekey' : 'personalize';
      const done = opts.rekey ? 'rekeyed' : 'configured';
      const ids = opts.allCreated ? await allCreated(base, opts.key).catch(reach) : tagIds;
      if (ids.length === 0) throw new CliError(opts.allCreated ? 'no created tags to write' : 'name at least one tag id, or --all-created');
      const http = new HttpTransport(base, opts.key);
      const client = new WriterClient({ post: (path, body) => http.post(path, body).catch(reach) });
      const tty = !opts.json && process.stderr.isTTY;
      const outcomes: WriteOutcome[] = [];
      for (const [index, tagId] of ids.entries()) {
        const progress = (step: string) => {
          if (tty) process.stderr.write(`\r[${index + 1}/${ids.length}] ${tagId}: ${step}…   `);
        };
        let outcome: WriteOutcome;
        const tag = await getJson(base, opts.key, `/tags/${encodeURIComponent(tagId)}`).catch(reach);
        const url: unknown = tag.status === 200 ? tag.body.data.attributes.url : null;
        // The platform writes any url as given (the contract lets the caller choose it), so this only
        // warns: a chip that opens nothing on a phone is still what was asked for.
        if (!opts.rekey && typeof url === 'string' && !phoneCanOpen(url))
          process.stderr.write(`tapproof: WARNING: ${tagId}: its url ${JSON.stringify(url)} is not an http(s) URL a phone can open; writing it as given\n`);
        if (opts.reader === 'emulator') {
          if (tag.status !== 200) {
            outcome = {
              writeId: null,
              tagId,
              status: 'failed',
              reason: null,
              roundTrips: 0,
              refused: { status: tag.status, detail: tag.body?.errors?.[0]?.title ?? `HTTP ${tag.status}` },
            };
          } else {
            const protocol = tag.body.data.attributes.protocol;
            const saved = loadCard(config.dataDir, tagId);
            // A rekey changes the chip the tag was written onto: a blank card would only be refused.
            if (saved === null && opts.rekey)
              throw new CliError(
                `${tagId}: no emulated card in ${cardPath(config.dataDir, tagId)} to rekey: only a chip written here with --reader emulator has one (an imported chip's keys move to the current master generation with tapproof master rewrap; a real chip is rekeyed with --reader pcsc)`,
              );
            const card = saved ?? new Ntag424Card({ protocol: protocol === 'ntag_424_dna_tag_tamper' ? protocol : 'ntag_424_dna' });
            try {
              outcome = await client.write(tagId, { transmit: async (apdu) => Buffer.from(card.transmit(apdu)) }, progress, operation);
            } finally {
              saveCard(config.dataDir, tagId, card);
            }
          }
        } else {
          if (!opts.json) process.stderr.write(`[${index + 1}/${ids.length}] ${tagId}: present a chip to the reader\n`);
          let reader: PcscCard;
          try {
            reader = await connectPcsc(opts.pcscReader === undefined ? {} : { name: opts.pcscReader });
          } catch (error) {
            if (error instanceof PcscUnavailableError) throw new CliError(error.message);
            throw new CliError(`PC/SC: ${(error as Error).message}`);
          }
          try {
            outcome = await client.write(tagId, reader, progress, operation);
          } finally {
            await reader.close();
          }
        }
        if (tty) process.stderr.write('\r\x1b[K');
        outcomes.push(outcome);
        const line = outcome.refused
          ? `${tagId}: refused (${outcome.refused.detail})`
          : outcome.status === done
            ? `${tagId}: ${done} (${outcome.roundTrips} round trips)`
            : `${tagId}: failed, ${outcome.reason!.code}: ${outcome.reason!.detail}`;
        output(opts.json, outcome, line);
      }
      const ok = outcomes.filter((o) => o.status === done).length;
      if (!opts.json) process.stdout.write(`${ok} of ${outcomes.length} tag${outcomes.length === 1 ? '' : 's'} ${done}\n`);
      if (ok < outcomes.length) process.exitCode = 1;
    });
}
