// Shared steps of the writer tests: a created tag, a software card, one write through the relay.
import { Ntag424Card, type CardOptions } from '../../src/chips/index.js';
import { WriterClient, type CardLink } from '../../src/writer/relay.js';
import { call, type TestServer } from '../harness.js';

export function cardLink(card: Ntag424Card): CardLink {
  return { transmit: async (apdu) => Buffer.from(card.transmit(apdu)) };
}

export async function createdTag(server: TestServer, key: string, protocol = 'ntag_424_dna', url = `https://example.com/w/${Math.random().toString(36).slice(2)}`): Promise<{ id: string; url: string }> {
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
  const rows = await server.ctx.db.kysely.selectFrom('events').select(['type', 'payload', 'created_at', 'id']).where('tag_id', '=', tagId).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

export function verify(server: TestServer, key: string, url: string) {
  return call(server, 'POST', '/verifications', { key, body: { data: { type: 'verifications', attributes: { url } } } });
}
