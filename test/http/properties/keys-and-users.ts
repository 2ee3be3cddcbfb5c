// Keys (create, roll, revoke, the current key), the team's people (invite, update, reset) and a person's
// own settings, which no key has.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isWellFormed } from '../../../src/http/text-rules.js';
import { call } from '../../kit/harness.js';
import { assertError } from '../../kit/assertions.js';
import { RUNS, fromPool, maybeJunk, judge, type PropertySuite } from './kit.js';

export function keyAndUserProperties(p: PropertySuite): void {
  const { suite, tally, s, key, live, property, readsBack, idChoice, resolveId, pathOf } = p;
  test('keys: POST /keys, roll, revoke and GET /keys/current with any attributes and ids', async (t) => {
    const ROLE_VALUES = ['admin', 'write', 'read', 'verify'];
    const attribute = <T>(good: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean()) });
    const arbitrary = fc.record({
      op: fc.constantFrom('create', 'roll', 'revoke', 'current'),
      role: fc.option(attribute(fc.constantFrom(...ROLE_VALUES)), { nil: undefined }),
      name: fc.option(attribute(fc.string({ unit: 'grapheme', minLength: 0, maxLength: 102 })), { nil: undefined }),
      expiresIn: fc.option(attribute(fc.integer({ min: -5, max: 604_805 })), { nil: undefined }),
      target: idChoice('key'),
      junk: maybeJunk,
    });
    // Keys this property made and may still act on (the suite's own keys are never rolled or revoked).
    const made: { id: string; key: string }[] = [];
    const ROUTES_HIT = ['POST /keys', 'POST /keys/:id/roll', 'DELETE /keys/:id', 'GET /keys/current'];
    await property(t, ROUTES_HIT, RUNS.cheap, arbitrary, async (c) => {
      const ids = made.map((m) => m.id);
      if (c.op === 'create') {
        const attributes: Record<string, unknown> = {};
        if (c.role !== undefined) attributes.role = c.role;
        if (c.name !== undefined) attributes.name = c.name;
        if (typeof c.expiresIn === 'number') attributes.expires_at = new Date(Date.now() + c.expiresIn * 1000).toISOString();
        const r = await call(s(), 'POST', '/keys', { key: key(), body: c.junk ?? { data: { type: 'keys', attributes } } });
        judge(tally, 'POST /keys', r);
        if (r.status === 201) {
          made.push({ id: r.body.data.id, key: r.body.data.attributes.key });
          const { key: _text, ...shown } = r.body.data.attributes;
          await readsBack('GET /keys/current', '/keys/current', { ...r.body.data, attributes: shown }, r.body.data.attributes.key);
        } else assert.ok([400, 422].includes(r.status), r.text);
      } else if (c.op === 'roll') {
        const id = resolveId(c.target, ids);
        const body = c.junk ?? (c.expiresIn === undefined ? undefined : { data: { type: 'keys', attributes: { expires_in: c.expiresIn } } });
        const r = await call(s(), 'POST', `/keys/${pathOf(id)}/roll`, { key: key(), body });
        judge(tally, 'POST /keys/:id/roll', r);
        if (r.status === 201) made.push({ id: r.body.data.id, key: r.body.data.attributes.key });
        else assert.ok([400, 404, 409, 422].includes(r.status), r.text);
        if (r.status === 201 || r.status === 409) assert.ok(ids.includes(id), `${id} is not a key of this world`);
      } else if (c.op === 'revoke') {
        const id = resolveId(c.target, ids);
        const r = await call(s(), 'DELETE', `/keys/${pathOf(id)}`, { key: key() });
        judge(tally, 'DELETE /keys/:id', r);
        assert.equal(r.status, ids.includes(id) ? 204 : 404, r.text);
        if (r.status === 204) assertError(await call(s(), 'GET', '/keys/current', { key: made.find((m) => m.id === id)!.key }), 401);
      } else {
        const own = fromPool(made, 'known' in c.target ? c.target.known : 0);
        const r = await call(s(), 'GET', '/keys/current', { key: own?.key ?? key() });
        judge(tally, 'GET /keys/current', r);
        assert.ok([200, 401].includes(r.status), r.text);
        if (r.status === 200) assert.equal(r.body.data.id, own?.id ?? suite.world.sandbox.id);
      }
    });
  });

  test('users: invite, update and reset with any attributes and ids', async (t) => {
    const attribute = <T>(good: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean()) });
    const arbitrary = fc.record({
      op: fc.constantFrom('invite', 'update', 'reset', 'profile'),
      email: fc.option(
        attribute(
          fc.oneof(
            fc.emailAddress(),
            fc.string({ maxLength: 12 }).map((local) => `${local}@example.com`),
            fc.string({ maxLength: 260 }),
          ),
        ),
        { nil: undefined },
      ),
      role: fc.option(attribute(fc.constantFrom('admin', 'write', 'read', 'verify')), { nil: undefined }),
      disabled: fc.option(attribute(fc.boolean()), { nil: undefined }),
      target: idChoice('usr'),
      junk: maybeJunk,
    });
    const made: string[] = [];
    const ROUTES_HIT = ['POST /users', 'PATCH /users/:id', 'POST /users/:id/reset', 'GET /profile/notifications', 'PATCH /profile/notifications'];
    await property(t, ROUTES_HIT, RUNS.cheap, arbitrary, async (c) => {
      if (c.op === 'invite') {
        const attributes: Record<string, unknown> = {};
        if (c.email !== undefined) attributes.email = c.email;
        if (c.role !== undefined) attributes.role = c.role;
        const r = await call(s(), 'POST', '/users', { key: live(), body: c.junk ?? { data: { type: 'users', attributes } } });
        judge(tally, 'POST /users', r);
        if (r.status === 201) made.push(r.body.data.id);
        else assert.ok([400, 409, 422].includes(r.status), r.text);
      } else if (c.op === 'update') {
        const id = resolveId(c.target, made);
        const attributes: Record<string, unknown> = {};
        if (c.role !== undefined) attributes.role = c.role;
        if (c.disabled !== undefined) attributes.disabled = c.disabled;
        const r = await call(s(), 'PATCH', `/users/${pathOf(id)}`, { key: live(), body: c.junk ?? { data: { type: 'users', id, attributes } } });
        judge(tally, 'PATCH /users/:id', r);
        if (r.status === 200) assert.ok(made.includes(id), `${id} is not a user of this team`);
        else assert.ok([400, 404, 422].includes(r.status), r.text);
      } else if (c.op === 'profile') {
        // A key is nobody: it has no settings to read or change, whatever the document.
        const patch = c.disabled !== undefined;
        const body = c.junk ?? { data: { type: 'notification-settings', attributes: { case_opened: c.disabled } } };
        const r = await call(s(), patch ? 'PATCH' : 'GET', '/profile/notifications', { key: live(), body: patch ? body : undefined });
        judge(tally, `${patch ? 'PATCH' : 'GET'} /profile/notifications`, r);
        assert.equal(r.status, 403, r.text);
      } else {
        const id = resolveId(c.target, made);
        // A reset link is answered to a person in the console only: every key is refused, whatever the id.
        const r = await call(s(), 'POST', `/users/${pathOf(id)}/reset`, { key: live() });
        judge(tally, 'POST /users/:id/reset', r);
        // `.` and `..` are path segments the URL resolves away, and a lone surrogate cannot be a URL's
        // character: no user route is named at all.
        assert.equal(r.status, ['.', '..'].includes(id) || !isWellFormed(id) ? 404 : 403, r.text);
      }
    });
  });
}
