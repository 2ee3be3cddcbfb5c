// Builders and assertions of tags, shared by the tag, http and security tests.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { markConfigured } from '../../src/tags/service.js';
import type { Mode } from '../../src/db/schema.js';
import { call, type TestServer, type SeededTeam } from '../kit/harness.js';
import { ISO_MICROS } from '../kit/assertions.js';

export const TAG_ID = /^tag_[0-9A-Za-z]{22}$/;
export const TAG_FIELDS = ['comment', 'configured_at', 'inserted_at', 'protocol', 'session_duration', 'status', 'updated_at', 'url'];

const run = randomBytes(4).toString('hex');
let counter = 0;
/** A url no other test uses. */
export const uniqueUrl = (label = 'tag') => `https://example.test/${run}/${label}/${++counter}`;

type Attributes = Record<string, unknown>;

/** One POST /tags entry: protocol and a fresh url unless given; `undefined` values drop the attribute. */
export function tagEntry(attributes: Attributes = {}): { type: 'tags'; attributes: Attributes } {
  const merged: Attributes = { protocol: 'ntag_424_dna', url: uniqueUrl(), ...attributes };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return { type: 'tags', attributes: merged };
}

/** A POST /tags document of `n` fresh entries, or of the given attribute sets. */
export function createDocument(entries: number | Attributes[]): { data: ReturnType<typeof tagEntry>[] } {
  const list = typeof entries === 'number' ? Array.from({ length: entries }, () => ({})) : entries;
  return { data: list.map(tagEntry) };
}

/** A PATCH /tags/:id document. */
export const updateDocument = (id: string, attributes: Attributes) => ({ data: { type: 'tags', id, attributes } });

/** A PATCH /tags document. */
export const batchUpdateDocument = (updates: { id: string; attributes: Attributes }[]) => ({
  data: updates.map((u) => ({ type: 'tags', id: u.id, attributes: u.attributes })),
});

/** A DELETE /tags document. */
export const deleteDocument = (ids: string[]) => ({ data: ids.map((id) => ({ type: 'tags', id })) });

/** Creates tags over HTTP and returns their resource objects. */
export async function createTags(server: TestServer, key: string, entries: number | Attributes[] = 1): Promise<any[]> {
  const response = await call(server, 'POST', '/tags', { key, body: createDocument(entries) });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

export async function createTag(server: TestServer, key: string, attributes: Attributes = {}): Promise<any> {
  return (await createTags(server, key, [attributes]))[0];
}

/** Marks a tag configured the way the chip writer does: markConfigured in a transaction. */
export async function configure(server: TestServer, world: SeededTeam, tagId: string, mode: Mode = 'sandbox'): Promise<void> {
  await server.ctx.db.kysely.transaction().execute((trx) => markConfigured(trx, { teamId: world.teamId, mode }, tagId, server.ctx.clock));
}

/** Outbox rows of `type` (optionally for one team). */
export async function eventRows(server: TestServer, type: string, teamId?: string): Promise<{ tag_id: string; payload: string }[]> {
  let query = server.ctx.db.kysely.selectFrom('events').select(['tag_id', 'payload']).where('type', '=', type);
  if (teamId) query = query.where('team_id', '=', teamId);
  return query.orderBy('seq').execute();
}

export async function totalCount(server: TestServer, key: string): Promise<number> {
  const response = await call(server, 'GET', '/tags', { key });
  assert.equal(response.status, 200, response.text);
  return response.body.meta.total_count;
}

/** A tag resource object with all nine fields of the right types. */
export function assertTag(resource: any, expected: Attributes = {}): void {
  assert.equal(resource.type, 'tags');
  assert.match(resource.id, TAG_ID);
  assert.deepEqual(Object.keys(resource).sort(), ['attributes', 'id', 'type']);
  const a = resource.attributes;
  assert.deepEqual(Object.keys(a).sort(), TAG_FIELDS);
  assert.ok(['ntag_424_dna', 'ntag_424_dna_tag_tamper', 'ntag_223_dna'].includes(a.protocol));
  assert.equal(typeof a.url, 'string');
  assert.ok(a.comment === null || typeof a.comment === 'string');
  assert.ok(Number.isInteger(a.session_duration));
  assert.ok(a.status === 'created' || a.status === 'configured');
  assert.match(a.inserted_at, ISO_MICROS);
  assert.match(a.updated_at, ISO_MICROS);
  if (a.status === 'created') assert.equal(a.configured_at, null);
  else assert.match(a.configured_at, ISO_MICROS);
  for (const [k, v] of Object.entries(expected)) assert.deepEqual(a[k], v, `attribute ${k}`);
}
