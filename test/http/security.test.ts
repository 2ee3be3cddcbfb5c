// The security matrix: every platform route answers 401 without a valid key and
// 404 (or "not visible") for resources of another team, a subteam, the parent
// team or the other mode.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { newKeyText } from '../../src/keys/key-text.js';
import { revoke } from '../../src/keys/service.js';
import { DATABASES, call, type World } from '../harness.js';
import { assertError, batchUpdateDocument, createDocument, createTag, deleteDocument, sharedServer, updateDocument } from '../tags/helpers.js';

for (const kind of DATABASES) {
  describe(`security matrix (${kind})`, () => {
    const suite = sharedServer(kind);
    /** The owner's sandbox tag, and every other world that must not see it. */
    let tag: any;
    let team: World;
    let outsiders: Record<string, string>;
    let revokedKey: string;

    before(async () => {
      const { server } = suite;
      const parent = await server.seedTeam({ name: 'parent' });
      team = await server.seedTeam({ name: 'team', parent: parent.teamId });
      const sub = await server.seedTeam({ name: 'sub', parent: team.teamId });
      const other = await server.seedTeam({ name: 'other' });
      tag = await createTag(server, team.sandbox.key, { comment: 'secret' });
      outsiders = { 'other team': other.sandbox.key, subteam: sub.sandbox.key, 'parent team': parent.sandbox.key, 'other mode': team.production.key };
      const extra = await server.seedTeam();
      await revoke(server.ctx.db, extra.sandbox.id);
      revokedKey = extra.sandbox.key;
    });

    /** Every route with a body that would succeed for the owner. */
    const routes = (): { method: string; path: string; body?: unknown }[] => [
      { method: 'GET', path: '/tags' },
      { method: 'POST', path: '/tags', body: createDocument(1) },
      { method: 'GET', path: `/tags/${tag.id}` },
      { method: 'PATCH', path: `/tags/${tag.id}`, body: updateDocument(tag.id, { comment: 'x' }) },
      { method: 'PATCH', path: '/tags', body: batchUpdateDocument([{ id: tag.id, attributes: { comment: 'x' } }]) },
      { method: 'DELETE', path: `/tags/${tag.id}` },
      { method: 'DELETE', path: '/tags', body: deleteDocument([tag.id]) },
      { method: 'GET', path: `/teams/${team.teamId}` },
      { method: 'GET', path: `/keys/${team.sandbox.id}` },
    ];

    test('no key, malformed header, unknown key, revoked key → 401 on every route', async () => {
      const { server } = suite;
      const headerVariants: Record<string, Record<string, string>> = {
        'no key': {},
        'empty header': { authorization: '' },
        'Bearer without key': { authorization: 'Bearer' },
        'Basic scheme': { authorization: `Basic ${Buffer.from('user:' + team.sandbox.key).toString('base64')}` },
        'key without scheme': { authorization: team.sandbox.key },
        'two tokens': { authorization: `Bearer ${team.sandbox.key} ${team.sandbox.key}` },
        'truncated key': { authorization: `Bearer ${team.sandbox.key.slice(0, -1)}` },
        'unknown sandbox key': { authorization: `Bearer ${newKeyText('sandbox')}` },
        'unknown live key': { authorization: `Bearer ${newKeyText('production')}` },
        'sandbox key relabelled live': { authorization: `Bearer ${team.sandbox.key.replace('tp_sandbox_', 'tp_live_')}` },
        'key id instead of key': { authorization: `Bearer ${team.sandbox.id}` },
        'revoked key': { authorization: `Bearer ${revokedKey}` },
      };
      for (const route of routes()) {
        for (const [name, headers] of Object.entries(headerVariants)) {
          const response = await call(server, route.method, route.path, { body: route.body, headers });
          assert.equal(response.status, 401, `${route.method} ${route.path} with ${name}: ${response.text}`);
          assertError(response, 401);
        }
      }
      // None of it changed anything.
      const got = await call(server, 'GET', `/tags/${tag.id}`, { key: team.sandbox.key });
      assert.deepEqual(got.body.data, tag);
    });

    test('the scheme is case-insensitive and the owner passes on every route', async () => {
      const { server } = suite;
      const response = await call(server, 'GET', `/tags/${tag.id}`, { headers: { authorization: `bearer ${team.sandbox.key}` } });
      assert.equal(response.status, 200);
    });

    test('other team, subteam, parent team, other mode → 404 on single-resource routes, nothing changed', async () => {
      const { server } = suite;
      for (const [who, key] of Object.entries(outsiders)) {
        for (const route of routes().filter((r) => r.path === `/tags/${tag.id}`)) {
          const response = await call(server, route.method, route.path, { key, body: route.body });
          assertError(response, 404);
        }
        // PATCH /tags naming the tag: 404 as well.
        assertError(await call(server, 'PATCH', '/tags', { key, body: batchUpdateDocument([{ id: tag.id, attributes: { comment: 'x' } }]) }), 404);
        // DELETE /tags ignores it.
        const deleted = await call(server, 'DELETE', '/tags', { key, body: deleteDocument([tag.id]) });
        assert.equal(deleted.status, 200, `${who}: ${deleted.text}`);
        assert.deepEqual(deleted.body.meta, { deleted: [], kept: [] });
        // The list does not show it, neither by q on its id nor by its comment.
        for (const query of ['', `?q=${tag.id}`, '?q=secret', '?page_size=100']) {
          const listed = await call(server, 'GET', `/tags${query}`, { key });
          assert.equal(listed.status, 200);
          assert.ok(!listed.body.data.some((t: any) => t.id === tag.id), `${who} lists the tag with ${query}`);
        }
        // The team is not theirs (the other mode's key belongs to it), nor the sandbox key.
        if (who === 'other mode') assert.equal((await call(server, 'GET', `/teams/${team.teamId}`, { key })).status, 200);
        else assertError(await call(server, 'GET', `/teams/${team.teamId}`, { key }), 404);
        assertError(await call(server, 'GET', `/keys/${team.sandbox.id}`, { key }), 404);
      }
      const got = await call(server, 'GET', `/tags/${tag.id}`, { key: team.sandbox.key });
      assert.deepEqual(got.body.data, tag);
    });

    test('a key creates in its own world only', async () => {
      const { server } = suite;
      const created = await createTag(server, team.production.key);
      assertError(await call(server, 'GET', `/tags/${created.id}`, { key: team.sandbox.key }), 404);
      assert.equal((await call(server, 'GET', `/tags/${created.id}`, { key: team.production.key })).status, 200);
      const rows = await server.ctx.db.kysely.selectFrom('tags').select(['team_id', 'mode']).where('id', '=', created.id).execute();
      assert.deepEqual(rows, [{ team_id: team.teamId, mode: 'production' }]);
    });
  });
}
