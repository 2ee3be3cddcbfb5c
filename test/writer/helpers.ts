// Shared steps of the writer tests: a created tag, a software card, one write through the relay.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { TestContext } from 'node:test';
import { Ntag424Card, VpcdLink, vpcdReaderName, type CardOptions } from '../../src/chips/index.js';
import { WriterClient, type CardLink } from '../../src/writer/relay.js';
import { cliResult } from '../cli/process.js';
import { call, type TestServer } from '../kit/harness.js';

export function cardLink(card: Ntag424Card): CardLink {
  return { transmit: async (apdu) => Buffer.from(card.transmit(apdu)) };
}

export async function createdTag(
  server: TestServer,
  key: string,
  protocol = 'ntag_424_dna',
  url = `https://example.com/w/${Math.random().toString(36).slice(2)}`,
): Promise<{ id: string; url: string }> {
  const r = await call(server, 'POST', '/tags', { key, body: { data: [{ type: 'tags', attributes: { protocol, url } }] } });
  if (r.status !== 201) throw new Error(`tag create: ${r.status} ${r.text}`);
  return { id: r.body.data[0].id, url };
}

export function newCard(protocol: 'ntag_424_dna' | 'ntag_424_dna_tag_tamper' = 'ntag_424_dna', options: CardOptions = {}) {
  return new Ntag424Card({ protocol, ...options });
}

export async function writeTag(server: TestServer, key: string, tagId: string, card: Ntag424Card) {
  return new WriterClient(server.base, key).write(tagId, cardLink(card));
}

/** The events of a tag, oldest first, with their payloads parsed. */
export async function eventsOf(server: TestServer, tagId: string): Promise<{ type: string; payload: any }[]> {
  const rows = await server.ctx.db.kysely
    .selectFrom('events')
    .select(['type', 'payload', 'created_at', 'id'])
    .where('tag_id', '=', tagId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

/** A rekey of the tag's chip through the relay. */
export const rekey = (server: TestServer, key: string, tagId: string, card: Ntag424Card) =>
  new WriterClient(server.base, key).write(tagId, cardLink(card), () => {}, 'rekey');

export const chipOf = (server: TestServer, tagId: string) =>
  server.ctx.db.kysely
    .selectFrom('chips')
    .select(['key_version', 'key_source', 'pending_key_version', 'last_counter', 'write_generation', 'app_master_key_sealed', 'sdm_file_read_key_sealed'])
    .where('tag_id', '=', tagId)
    .executeTakeFirstOrThrow();

/** Taps `card` and verifies the URL: it must be genuine at the next counter. */
export async function tapsGenuine(server: TestServer, key: string, card: Ntag424Card, tagId: string): Promise<{ url: string; counter: number }> {
  const url = card.tap();
  const r = await verify(server, key, url);
  assert.equal(r.status, 201, r.text);
  assert.equal(r.body.data.attributes.genuine, true, r.text);
  assert.equal(r.body.data.attributes.tag_id, tagId);
  return { url, counter: r.body.data.attributes.read_counter };
}

export function verify(server: TestServer, key: string, url: string) {
  return call(server, 'POST', '/verifications', { key, body: { data: { type: 'verifications', attributes: { url } } } });
}

/**
 * A written TagTamper chip whose tag url has a query: the SDM part follows with `&`, the tap verifies
 * genuine with the loop closed, and genuine with it open after the tamper.
 */
export async function tamperTapsVerify(server: TestServer, key: string, card: Ntag424Card, url: string): Promise<void> {
  const closed = card.tap();
  assert.ok(closed.startsWith(`${url}&picc_data=`), closed);
  const c = await verify(server, key, closed);
  assert.equal(c.body.data.attributes.genuine, true, c.text);
  assert.equal(c.body.data.attributes.tamper.current, 'closed');
  card.tamper('open');
  const o = await verify(server, key, card.tap());
  assert.equal(o.body.data.attributes.genuine, true, o.text);
  assert.equal(o.body.data.attributes.tamper.current, 'open');
}

/** `tapproof ARGS…` as its own process on the server's storage, whatever its exit code. */
export const cli = (server: TestServer, args: string[], nodeArgs: string[] = []) => cliResult(server, args, { nodeArgs });

/** Why a PC/SC test cannot run here (the optional binding is missing), or false. */
export function pcscSkip(): string | false {
  try {
    createRequire(import.meta.url)('pcsclite');
    return false;
  } catch {
    return 'the optional pcsclite binding is not installed';
  }
}

/** pcscd's reader of a vpcd port (vpcd's slots: 35963 → "Virtual PCD 00 00", 35964 → "… 00 01"). */
export const vpcdReader = vpcdReaderName;

/** Runs `fn` with `card` in pcscd's virtual reader on `port`; skips the test (false) when pcscd is not there. */
export async function withVpcdCard(t: TestContext, card: Ntag424Card, port: number, fn: () => Promise<void>): Promise<boolean> {
  let link: VpcdLink;
  try {
    link = await VpcdLink.connect(card, { port });
  } catch (e) {
    t.skip(`pcscd with vsmartcard-vpcd is not reachable on port ${port} (start pcscd): ${(e as Error).message}`);
    return false;
  }
  try {
    await fn();
  } finally {
    await link.close();
  }
  return true;
}
