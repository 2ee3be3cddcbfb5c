// Every authenticated route of the platform API, in one table. The security matrix
// (test/http/route-matrix.test.ts) drives 401 / other team / subteam / parent team /
// other mode / malformed ids over each row, and fails when the server registers a route
// that is not in this table: a new route cannot skip the matrix.
import type { Access, Reach } from '../../src/http/access.js';
import type { AuditOperation } from '../../src/audit/operations.js';
import { randomUUID } from 'node:crypto';
import { systemActor } from '../../src/audit/record.js';
import { createKey } from '../../src/keys/service.js';
import { inviteUser } from '../../src/users/service.js';
import { call, type TestServer, type SeededTeam } from '../kit/harness.js';
import { createdTag } from '../writer/helpers.js';
import { emulated, tapUrl, verify } from '../verifications/helpers.js';

/** One resource of every kind, owned by one team's sandbox. */
export interface Owned {
  world: SeededTeam;
  /** A created (unwritten) tag. */
  tag: { id: string; url: string };
  webhookId: string;
  /** An event delivered (or due) to the webhook. */
  eventId: string;
  writeId: string;
  /** A configured tag on an emulated chip (the one the scans are of). */
  chipTagId: string;
  verificationId: string;
  sessionId: string;
  /** A case of the chip's tag, opened by a counter gap. */
  caseId: string;
  /** A fresh scan of the owner's configured tag, not yet verified. */
  scanUrl: string;
  /** A second key of the owner's sandbox, for the routes that revoke or roll a key. */
  spareKeyId: string;
  /** A console user of the owner's team (a team's users belong to both its modes). */
  userId: string;
  /** A product and an Ethereum token of the owner's sandbox. */
  productId: string;
  tokenId: string;
  /** An address that holds the token (in the embedded holdings table). */
  holder: string;
}

export interface RouteRow {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** As registered, relative to the API prefix. */
  pattern: string;
  /** A request that would succeed for the owner (before anything else ran). */
  request(o: Owned): { path: string; body?: unknown };
  /** The same route naming `id` instead of the owner's resource (routes with an id only). */
  withId?: (id: string) => { path: string; body?: unknown };
  /**
   * What a key of another world gets when it names the owner's resource: 404, or the
   * status of a request that acts on the caller's own world only (list, create, bulk delete).
   */
  outsider: number;
  /**
   * Which roles of key may call it (docs/api.md#keys): written here from the rules, not read from the
   * routes, so a route that declares another access fails the role matrix (test/keys/roles.test.ts).
   */
  access: Access;
  /**
   * What the audit log records for the owner's request (test/audit/routes.test.ts): required on every
   * route that changes something, so a new one cannot skip the log; `unrecorded` says why it does not.
   */
  audit?: AuditOperation | { unrecorded: string };
  /**
   * The status the other mode's key of the owner's team gets, on a route whose resource belongs to the
   * team rather than to one of its worlds (users): that key is the owner's team, not an outsider.
   */
  teamWide?: number;
  /**
   * How far past one world the route reaches (src/http/access.ts), written from the rules: `team` admits no
   * sandbox key, `person` and `self` no key at all (a console session only); unset, the caller's world.
   */
  reach?: Reach;
}

/** A route no key may call: only a person signed in to the console. */
export const keyless = (route: RouteRow): boolean => route.reach === 'person' || route.reach === 'self';

/** The owner's key for a route: its sandbox key, or its production key where the route reaches the whole team; null where no key may call it. */
export const ownerKey = (route: RouteRow, world: SeededTeam): string | null =>
  keyless(route) ? null : route.reach === 'team' ? world.production.key : world.sandbox.key;

const tagDoc = (id: string) => ({ data: { type: 'tags', id, attributes: { comment: 'x' } } });
const webhookDoc = (id: string) => ({ data: { type: 'webhooks', id, attributes: { enabled: false } } });
const responsesDoc = (id: string) => ({ data: { type: 'writes', id, attributes: { responses: [] } } });
const caseDoc = (id: string) => ({ data: { type: 'cases', id, attributes: { state: 'acknowledged' } } });
const noteDoc = () => ({ data: { type: 'case-notes', attributes: { body: 'Looked at it.' } } });
const userDoc = (id: string) => ({ data: { type: 'users', id, attributes: { role: 'write' } } });
const linksDoc = (productId: string | null) => () => ({ data: { type: 'tag-links', attributes: { product_id: productId } } });
const holdingDoc = () => ({ data: { type: 'holdings', attributes: { address: OTHER_HOLDER, quantity: 2 } } });
const rollDoc = () => ({ data: { type: 'keys', attributes: { expires_in: 60 } } });
const byId =
  (prefix: string, suffix = '', body?: (id: string) => unknown) =>
  (id: string) => ({ path: `${prefix}${id}${suffix}`, body: body?.(id) });

/** The owned token's holder, and an address that holds none of it yet. */
const HOLDER = '0x00000000000000000000000000000000000000aa';
const OTHER_HOLDER = '0x00000000000000000000000000000000000000bb';

export const ROUTES: RouteRow[] = [
  { method: 'GET', pattern: '/tags', request: () => ({ path: '/tags' }), outsider: 200, access: 'read' },
  { method: 'GET', pattern: '/tags/export', request: () => ({ path: '/tags/export' }), outsider: 200, access: 'read' },
  // The owner's url: urls are unique per team and mode, so any other world may use it too.
  {
    method: 'POST',
    pattern: '/tags',
    request: (o) => ({ path: '/tags', body: { data: [{ type: 'tags', attributes: { protocol: 'ntag_424_dna', url: o.tag.url } }] } }),
    outsider: 201,
    access: 'write',
    audit: 'tag.create',
  },
  {
    method: 'PATCH',
    pattern: '/tags',
    request: (o) => ({ path: '/tags', body: { data: [tagDoc(o.tag.id).data] } }),
    outsider: 404,
    access: 'write',
    audit: 'tag.update',
  },
  {
    method: 'DELETE',
    pattern: '/tags',
    request: (o) => ({ path: '/tags', body: { data: [{ type: 'tags', id: o.tag.id }] } }),
    outsider: 200,
    access: 'write',
    audit: 'tag.delete',
  },
  { method: 'GET', pattern: '/tags/:id', request: (o) => byId('/tags/')(o.tag.id), withId: byId('/tags/'), outsider: 404, access: 'read' },
  {
    method: 'GET',
    pattern: '/tags/:id/links',
    request: (o) => byId('/tags/', '/links')(o.chipTagId),
    withId: byId('/tags/', '/links'),
    outsider: 404,
    access: 'read',
  },
  {
    method: 'GET',
    pattern: '/tags/:id/writes',
    request: (o) => byId('/tags/', '/writes')(o.tag.id),
    withId: byId('/tags/', '/writes'),
    outsider: 404,
    access: 'read',
  },
  {
    method: 'GET',
    pattern: '/tags/:id/chip',
    request: (o) => byId('/tags/', '/chip')(o.chipTagId),
    withId: byId('/tags/', '/chip'),
    outsider: 404,
    access: 'read',
  },
  {
    method: 'PATCH',
    pattern: '/tags/:id',
    request: (o) => byId('/tags/', '', tagDoc)(o.tag.id),
    withId: byId('/tags/', '', tagDoc),
    outsider: 404,
    access: 'write',
    audit: 'tag.update',
  },
  {
    method: 'DELETE',
    pattern: '/tags/:id',
    request: (o) => byId('/tags/')(o.tag.id),
    withId: byId('/tags/'),
    outsider: 404,
    access: 'write',
    audit: 'tag.delete',
  },
  { method: 'GET', pattern: '/teams/current', request: () => ({ path: '/teams/current' }), outsider: 200, access: 'read' },
  // Acts on the caller's own team and mode only.
  {
    method: 'PATCH',
    pattern: '/teams/current',
    request: () => ({ path: '/teams/current', body: { data: { type: 'teams', attributes: { signal_thresholds: { replay_burst: 3 } } } } }),
    outsider: 200,
    access: 'write',
    audit: 'team.update',
  },
  { method: 'GET', pattern: '/teams/:id', request: (o) => byId('/teams/')(o.world.teamId), withId: byId('/teams/'), outsider: 404, access: 'read' },
  { method: 'GET', pattern: '/keys', request: () => ({ path: '/keys' }), outsider: 200, access: 'admin' },
  { method: 'GET', pattern: '/users', request: () => ({ path: '/users' }), outsider: 200, access: 'admin', teamWide: 200, reach: 'team' },
  // Emails are unique across the deployment: each request invites someone new.
  {
    method: 'POST',
    pattern: '/users',
    request: () => ({ path: '/users', body: { data: { type: 'users', attributes: { email: `m-${randomUUID()}@example.com`, role: 'read' } } } }),
    outsider: 201,
    access: 'admin',
    audit: 'user.invite',
    teamWide: 201,
    reach: 'team',
  },
  {
    method: 'PATCH',
    pattern: '/users/:id',
    request: (o) => byId('/users/', '', userDoc)(o.userId),
    withId: byId('/users/', '', userDoc),
    outsider: 404,
    access: 'admin',
    audit: 'user.update',
    teamWide: 200,
    reach: 'team',
  },
  {
    method: 'POST',
    pattern: '/users/:id/reset',
    request: (o) => byId('/users/', '/reset')(o.userId),
    withId: byId('/users/', '/reset'),
    outsider: 404,
    access: 'admin',
    audit: 'user.reset',
    teamWide: 200,
    reach: 'person',
  },
  { method: 'GET', pattern: '/profile/notifications', request: () => ({ path: '/profile/notifications' }), outsider: 200, access: 'read', reach: 'self' },
  {
    method: 'PATCH',
    pattern: '/profile/notifications',
    request: () => ({ path: '/profile/notifications', body: { data: { type: 'notification-settings', attributes: { sandbox: true } } } }),
    outsider: 200,
    access: 'read',
    audit: { unrecorded: "a person's own choice of mail changes nothing of the team's" },
    reach: 'self',
  },
  { method: 'GET', pattern: '/audit-events', request: () => ({ path: '/audit-events' }), outsider: 200, access: 'admin' },
  { method: 'GET', pattern: '/keys/current', request: () => ({ path: '/keys/current' }), outsider: 200, access: 'any' },
  { method: 'GET', pattern: '/keys/:id', request: (o) => byId('/keys/')(o.world.sandbox.id), withId: byId('/keys/'), outsider: 404, access: 'admin' },
  // Acts on the caller's own team and mode only.
  {
    method: 'POST',
    pattern: '/keys',
    request: () => ({ path: '/keys', body: { data: { type: 'keys', attributes: { role: 'read' } } } }),
    outsider: 201,
    access: 'admin',
    audit: 'key.create',
  },
  {
    method: 'POST',
    pattern: '/keys/:id/roll',
    request: (o) => byId('/keys/', '/roll', rollDoc)(o.spareKeyId),
    withId: byId('/keys/', '/roll', rollDoc),
    outsider: 404,
    access: 'admin',
    audit: 'key.roll',
  },
  {
    method: 'DELETE',
    pattern: '/keys/:id',
    request: (o) => byId('/keys/')(o.spareKeyId),
    withId: byId('/keys/'),
    outsider: 404,
    access: 'admin',
    audit: 'key.revoke',
  },
  {
    method: 'POST',
    pattern: '/webhooks',
    request: () => ({ path: '/webhooks', body: { data: { type: 'webhooks', attributes: { url: 'https://hooks.example.com/matrix' } } } }),
    outsider: 201,
    access: 'write',
    audit: 'webhook.create',
  },
  { method: 'GET', pattern: '/webhooks', request: () => ({ path: '/webhooks' }), outsider: 200, access: 'read' },
  {
    method: 'GET',
    pattern: '/webhooks/:id/deliveries',
    request: (o) => byId('/webhooks/', '/deliveries')(o.webhookId),
    withId: byId('/webhooks/', '/deliveries'),
    outsider: 404,
    access: 'read',
  },
  {
    method: 'POST',
    pattern: '/webhooks/:id/deliveries/:eventId/redeliver',
    request: (o) => ({ path: `/webhooks/${o.webhookId}/deliveries/${o.eventId}/redeliver` }),
    withId: (id) => ({ path: `/webhooks/${id}/deliveries/evt_0000000000000000000000/redeliver` }),
    outsider: 404,
    access: 'write',
    audit: 'webhook.redeliver',
  },
  {
    method: 'POST',
    pattern: '/webhooks/:id/test',
    request: (o) => byId('/webhooks/', '/test')(o.webhookId),
    withId: byId('/webhooks/', '/test'),
    outsider: 404,
    access: 'write',
    audit: 'webhook.test',
  },
  { method: 'GET', pattern: '/webhooks/:id', request: (o) => byId('/webhooks/')(o.webhookId), withId: byId('/webhooks/'), outsider: 404, access: 'read' },
  {
    method: 'PATCH',
    pattern: '/webhooks/:id',
    request: (o) => byId('/webhooks/', '', webhookDoc)(o.webhookId),
    withId: byId('/webhooks/', '', webhookDoc),
    outsider: 404,
    access: 'write',
    audit: 'webhook.update',
  },
  {
    method: 'DELETE',
    pattern: '/webhooks/:id',
    request: (o) => byId('/webhooks/')(o.webhookId),
    withId: byId('/webhooks/'),
    outsider: 404,
    access: 'write',
    audit: 'webhook.delete',
  },
  {
    method: 'POST',
    pattern: '/writer/writes',
    request: (o) => ({ path: '/writer/writes', body: { data: { type: 'writes', attributes: { tag_id: o.tag.id } } } }),
    outsider: 404,
    access: 'write',
    audit: 'write.start',
  },
  {
    method: 'GET',
    pattern: '/writer/writes/:id',
    request: (o) => byId('/writer/writes/')(o.writeId),
    withId: byId('/writer/writes/'),
    outsider: 404,
    access: 'read',
  },
  {
    method: 'POST',
    pattern: '/writer/writes/:id/responses',
    request: (o) => byId('/writer/writes/', '/responses', responsesDoc)(o.writeId),
    withId: byId('/writer/writes/', '/responses', responsesDoc),
    outsider: 404,
    access: 'write',
    audit: 'write.finish',
  },
  {
    method: 'POST',
    pattern: '/verifications',
    request: (o) => ({ path: '/verifications', body: { data: { type: 'verifications', attributes: { url: o.scanUrl } } } }),
    outsider: 404,
    access: 'write+verify',
    audit: { unrecorded: 'a scan is its own record (GET /verifications)' },
  },
  { method: 'GET', pattern: '/verifications', request: () => ({ path: '/verifications' }), outsider: 200, access: 'read' },
  { method: 'GET', pattern: '/verifications/stats', request: () => ({ path: '/verifications/stats' }), outsider: 200, access: 'read' },
  { method: 'GET', pattern: '/verifications/export', request: () => ({ path: '/verifications/export' }), outsider: 200, access: 'read' },
  {
    method: 'GET',
    pattern: '/verifications/:id',
    request: (o) => byId('/verifications/')(o.verificationId),
    withId: byId('/verifications/'),
    outsider: 404,
    access: 'read+verify',
  },
  {
    method: 'GET',
    pattern: '/verifications/:id/ownership-proofs',
    request: (o) => byId('/verifications/', '/ownership-proofs')(o.verificationId),
    withId: byId('/verifications/', '/ownership-proofs'),
    outsider: 404,
    access: 'read',
  },
  {
    method: 'GET',
    pattern: '/verifications/:id/claims',
    request: (o) => byId('/verifications/', '/claims')(o.verificationId),
    withId: byId('/verifications/', '/claims'),
    outsider: 404,
    access: 'read',
  },
  { method: 'GET', pattern: '/cases', request: () => ({ path: '/cases' }), outsider: 200, access: 'read' },
  { method: 'GET', pattern: '/cases/:id', request: (o) => byId('/cases/')(o.caseId), withId: byId('/cases/'), outsider: 404, access: 'read' },
  {
    method: 'PATCH',
    pattern: '/cases/:id',
    request: (o) => byId('/cases/', '', caseDoc)(o.caseId),
    withId: byId('/cases/', '', caseDoc),
    outsider: 404,
    access: 'write',
    audit: 'case.update',
  },
  {
    method: 'POST',
    pattern: '/cases/:id/notes',
    request: (o) => byId('/cases/', '/notes', noteDoc)(o.caseId),
    withId: byId('/cases/', '/notes', noteDoc),
    outsider: 404,
    access: 'write',
    audit: 'case.add_note',
  },
  { method: 'GET', pattern: '/products', request: () => ({ path: '/products' }), outsider: 200, access: 'read' },
  // Acts on the caller's own team and mode only.
  {
    method: 'POST',
    pattern: '/products',
    request: () => ({ path: '/products', body: { data: { type: 'products', attributes: { name: 'Matrix product' } } } }),
    outsider: 201,
    access: 'write',
    audit: 'product.create',
  },
  { method: 'GET', pattern: '/tokens', request: () => ({ path: '/tokens' }), outsider: 200, access: 'read' },
  {
    method: 'POST',
    pattern: '/tokens',
    request: () => ({ path: '/tokens', body: { data: { type: 'tokens', attributes: ERC20 } } }),
    outsider: 201,
    access: 'write',
    audit: 'token.create',
  },
  // The owner's product in the body: another world's key names the owner's tag first, which it cannot see.
  {
    method: 'PATCH',
    pattern: '/tags/:id/links',
    request: (o) => byId('/tags/', '/links', linksDoc(o.productId))(o.tag.id),
    withId: byId('/tags/', '/links', linksDoc(null)),
    outsider: 404,
    access: 'write',
    audit: 'tag.link',
  },
  {
    method: 'GET',
    pattern: '/tokens/:id/holdings',
    request: (o) => byId('/tokens/', '/holdings')(o.tokenId),
    withId: byId('/tokens/', '/holdings'),
    outsider: 404,
    access: 'read',
  },
  {
    method: 'POST',
    pattern: '/tokens/:id/holdings',
    request: (o) => byId('/tokens/', '/holdings', holdingDoc)(o.tokenId),
    withId: byId('/tokens/', '/holdings', holdingDoc),
    outsider: 404,
    access: 'write',
    audit: 'holding.set',
  },
  {
    method: 'DELETE',
    pattern: '/tokens/:id/holdings/:address',
    request: (o) => byId('/tokens/', `/holdings/${o.holder}`)(o.tokenId),
    withId: byId('/tokens/', `/holdings/${HOLDER}`),
    outsider: 404,
    access: 'write',
    audit: 'holding.unset',
  },
  {
    method: 'GET',
    pattern: '/sessions/:id',
    request: (o) => byId('/sessions/')(o.sessionId),
    withId: byId('/sessions/'),
    outsider: 404,
    access: 'read+verify',
  },
];

const ERC20 = {
  chain: 'ethereum',
  name: 'Matrix token',
  symbol: 'MTX',
  supply: 1000,
  contract_address: '0x0000000000000000000000000000000000000001',
  standard: 'erc20',
};

/** Routes under the API prefix that answer without a key (the API's own description). */
export const PUBLIC_ROUTES = ['GET /openapi.json', 'GET /docs', 'GET /docs/redoc.standalone.js'];

/** Seeds one resource of every kind in `world`'s sandbox. */
export async function seedOwned(server: TestServer, world: SeededTeam): Promise<Owned> {
  const key = world.sandbox.key;
  const tag = await createdTag(server, key);
  const webhook = await call(server, 'POST', '/webhooks', {
    key,
    body: { data: { type: 'webhooks', attributes: { url: 'https://hooks.example.com/owned' } } },
  });
  const write = await call(server, 'POST', '/writer/writes', { key, body: { data: { type: 'writes', attributes: { tag_id: tag.id } } } });
  const chip = await emulated(server, world.teamId, 'ntag_424_dna');
  const verified = await verify(server, key, await tapUrl(server, chip.id));
  // Six reads never verified, then a genuine scan: a counter gap, which opens a case.
  for (let i = 0; i < 6; i++) await tapUrl(server, chip.id);
  const gap = await verify(server, key, await tapUrl(server, chip.id));
  const scanUrl = await tapUrl(server, chip.id);
  for (const [what, r, status] of [
    ['webhook', webhook, 201],
    ['write', write, 201],
    ['verification', verified, 201],
    ['counter gap', gap, 201],
  ] as const) {
    if (r.status !== status) throw new Error(`seeding the ${what}: ${r.status} ${r.text}`);
  }
  const product = await call(server, 'POST', '/products', { key, body: { data: { type: 'products', attributes: { name: 'Owned product' } } } });
  const token = await call(server, 'POST', '/tokens', { key, body: { data: { type: 'tokens', attributes: ERC20 } } });
  const holding =
    token.status === 201
      ? await call(server, 'POST', `/tokens/${token.body.data.id}/holdings`, { key, body: { data: { type: 'holdings', attributes: { address: HOLDER } } } })
      : token;
  for (const [what, r] of [
    ['product', product],
    ['token', token],
    ['holding', holding],
  ] as const) {
    if (r.status !== 201) throw new Error(`seeding the ${what}: ${r.status} ${r.text}`);
  }
  const delivery = await server.ctx.db.kysely.selectFrom('deliveries').select('event_id').where('webhook_id', '=', webhook.body.data.id).executeTakeFirst();
  if (!delivery) throw new Error('seeding: no delivery to the webhook');
  const opened = await server.ctx.db.kysely.selectFrom('cases').select('id').where('tag_id', '=', chip.id).executeTakeFirst();
  if (!opened) throw new Error(`seeding: the counter gap opened no case (${gap.text})`);
  return {
    world,
    tag,
    webhookId: webhook.body.data.id,
    eventId: delivery.event_id,
    writeId: write.body.data.id,
    chipTagId: chip.id,
    verificationId: verified.body.data.id,
    sessionId: verified.body.data.attributes.session_id,
    caseId: opened.id,
    scanUrl,
    spareKeyId: (await createKey(server.ctx.db.kysely, world.teamId, 'sandbox', server.clock)).id,
    userId: (
      await inviteUser(
        server.ctx,
        { teamId: world.teamId, actor: systemActor('seed') },
        { email: `owned-${randomUUID()}@example.com`, role: 'read' },
        server.origin,
      )
    ).user.id,
    productId: product.body.data.id,
    tokenId: token.body.data.id,
    holder: HOLDER,
  };
}

/** `METHOD /pattern` of every route the server registered under its API prefix (HEAD left out: it follows GET). */
export function registeredRoutes(server: TestServer): string[] {
  const prefix = server.ctx.config.apiPrefix;
  const found: string[] = [];
  const stack: string[] = [];
  for (const line of server.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const path = stack.join('');
    if (!path.startsWith(prefix + '/') || !match[3]) continue;
    for (const method of match[3].split(', ')) if (method !== 'HEAD') found.push(`${method} ${path.slice(prefix.length)}`);
  }
  return found.sort();
}
