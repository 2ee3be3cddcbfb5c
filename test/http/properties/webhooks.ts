// Webhooks: create, change, delete and read with any attributes and ids.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { EVENT_TYPES, TAG_EVENT_TYPES } from '../../../src/webhooks/event-types.js';
import { call } from '../../kit/harness.js';
import { RUNS, forget, pathText, urlChoice, resolveUrl, stray, maybeJunk, judge, type UrlChoice, type PropertySuite } from './kit.js';

export function webhookProperties(p: PropertySuite): void {
  const { tally, s, property, readsBack, idChoice, resolveId, pathOf } = p;
  test('webhooks: POST, PATCH, DELETE and GET /webhooks/:id', async (t) => {
    // A team of their own: every tag event of a world fans out to its webhooks.
    const team = await s().seedTeam({ name: 'hooks' });
    const hooks: string[] = [];
    const hookUrl = fc.oneof(
      { weight: 8, arbitrary: pathText.map((fresh) => ({ fresh })) },
      {
        weight: 1,
        arbitrary: fc
          .oneof(
            fc.ipV4(),
            fc.ipV6().map((ip) => `[${ip}]`),
            fc.constantFrom('localhost', '[::ffff:10.0.0.1]', '[64:ff9b::a9fe:a9fe]', '169.254.169.254'),
          )
          .map((host) => ({ exact: `https://${host}/hook` })),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom('http://hooks.example/h', 'ftp://hooks.example/', 'https://u:p@hooks.example/', 'not a url', '').map((exact) => ({ exact })),
      },
      { weight: 1, arbitrary: urlChoice },
    );
    const events = fc.oneof(
      { weight: 6, arbitrary: fc.subarray([...EVENT_TYPES], { minLength: 1 }) },
      { weight: 1, arbitrary: fc.constantFrom([], ['tag.created', 'tag.created'], ['tag.exploded'], 'tag.created', [1]) },
    );
    const resolveHookUrl = (c: UrlChoice) => resolveUrl(c, [], 'hooks.example');
    const withoutSecret = (data: any) => ({ ...data, attributes: Object.fromEntries(Object.entries(data.attributes).filter(([k]) => k !== 'secret')) });

    const creates = fc.record({
      url: fc.option(hookUrl, { freq: 25, nil: undefined }),
      events: fc.option(events, { freq: 4, nil: undefined }),
      stray,
      junk: maybeJunk,
    });
    await property(t, ['POST /webhooks', 'GET /webhooks/:id'], RUNS.write, creates, async (c) => {
      const attributes: Record<string, unknown> = { ...c.stray };
      if (c.url !== undefined) attributes.url = resolveHookUrl(c.url);
      if (c.events !== undefined) attributes.events = c.events;
      const r = await call(s(), 'POST', '/webhooks', { key: team.production.key, body: c.junk ?? { data: { type: 'webhooks', attributes } } });
      judge(tally, 'POST /webhooks', r);
      if (r.status !== 201) return;
      const a = r.body.data.attributes;
      assert.equal(a.url, attributes.url);
      assert.deepEqual(a.events, attributes.events ?? [...TAG_EVENT_TYPES]);
      assert.match(a.secret, /^whsec_/);
      hooks.push(r.body.data.id);
      await readsBack('GET /webhooks/:id', `/webhooks/${r.body.data.id}`, withoutSecret(r.body.data), team.production.key);
    });

    const updates = fc.record({
      id: idChoice('whk'),
      url: fc.option(hookUrl, { freq: 2, nil: undefined }),
      events: fc.option(events, { freq: 2, nil: undefined }),
      enabled: fc.option(fc.oneof({ weight: 5, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constantFrom('yes', 1, null) }), {
        freq: 3,
        nil: undefined,
      }),
      rotate: fc.option(fc.oneof({ weight: 5, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constant('true') }), { freq: 4, nil: undefined }),
      junk: maybeJunk,
    });
    await property(t, ['PATCH /webhooks/:id'], RUNS.write, updates, async (c) => {
      const id = resolveId(c.id, hooks);
      const attributes: Record<string, unknown> = {};
      if (c.url !== undefined) attributes.url = resolveHookUrl(c.url);
      if (c.events !== undefined) attributes.events = c.events;
      if (c.enabled !== undefined) attributes.enabled = c.enabled;
      if (c.rotate !== undefined) attributes.rotate_secret = c.rotate;
      const r = await call(s(), 'PATCH', `/webhooks/${pathOf(id)}`, {
        key: team.production.key,
        body: c.junk ?? { data: { type: 'webhooks', id, attributes } },
      });
      judge(tally, 'PATCH /webhooks/:id', r);
      if (r.status !== 200) return;
      for (const name of ['url', 'events', 'enabled'] as const) if (name in attributes) assert.deepEqual(r.body.data.attributes[name], attributes[name]);
      assert.equal('secret' in r.body.data.attributes, attributes.rotate_secret === true);
      await readsBack('GET /webhooks/:id', `/webhooks/${id}`, withoutSecret(r.body.data), team.production.key);
    });

    // A test event: to an enabled webhook of the key's world 202 (its delivery, pending), a disabled one 409, else 404.
    const tests = fc.record({ id: idChoice('whk'), sandbox: fc.boolean() });
    await property(t, ['POST /webhooks/:id/test'], RUNS.cheap, tests, async (c) => {
      const id = resolveId(c.id, hooks);
      const k = c.sandbox ? team.sandbox.key : team.production.key;
      const read = await call(s(), 'GET', `/webhooks/${pathOf(id)}`, { key: k });
      const r = await call(s(), 'POST', `/webhooks/${pathOf(id)}/test`, { key: k });
      judge(tally, 'POST /webhooks/:id/test', r);
      const expected = read.status !== 200 ? 404 : read.body.data.attributes.enabled ? 202 : 409;
      assert.equal(r.status, expected, r.text);
      if (r.status !== 202) return;
      assert.deepEqual(
        [r.body.data.attributes.webhook_id, r.body.data.attributes.event_type, r.body.data.attributes.tag_id, r.body.data.attributes.status],
        [id, 'webhook.test', null, 'pending'],
      );
    });

    const deletes = fc.record({ id: idChoice('whk'), sandbox: fc.boolean() });
    await property(t, ['DELETE /webhooks/:id', 'GET /webhooks/:id'], RUNS.read, deletes, async (c) => {
      const id = resolveId(c.id, hooks);
      const k = c.sandbox ? team.sandbox.key : team.production.key;
      const read = await call(s(), 'GET', `/webhooks/${pathOf(id)}`, { key: k });
      judge(tally, 'GET /webhooks/:id', read);
      const r = await call(s(), 'DELETE', `/webhooks/${pathOf(id)}`, { key: k });
      judge(tally, 'DELETE /webhooks/:id', r);
      assert.equal(r.status, read.status === 200 ? 204 : 404, r.text);
      if (r.status !== 204) return;
      forget(hooks, id);
      assert.equal((await call(s(), 'GET', `/webhooks/${id}`, { key: k })).status, 404);
    });
  });
}
