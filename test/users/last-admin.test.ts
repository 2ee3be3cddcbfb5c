// The last enabled admin of a team cannot be demoted or disabled, even when two admins demote or disable
// each other at the same moment through two `tapproof serve` processes on one database.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliActor } from '../../src/audit/record.js';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createKey } from '../../src/keys/service.js';
import { createTeam } from '../../src/teams/service.js';
import { inviteUser } from '../../src/users/service.js';
import { startServe, type ServeProcess } from '../cli/process.js';
import { DATABASES, call, freshStorage, type Storage } from '../kit/harness.js';

const TRIALS = 10;

for (const kind of DATABASES) {
  describe(`the last admin under concurrent changes, two servers (${kind})`, () => {
    let storage: Storage;
    let a: ServeProcess;
    let b: ServeProcess;
    let ctx: AppContext;

    before(async () => {
      storage = await freshStorage(kind);
      const env = { ...storage.env, TAPPROOF_RATE_LIMIT: '100000' };
      a = await startServe(env);
      b = await startServe(env);
      ctx = createContext(storage.open(), loadConfig(env));
    });

    after(async () => {
      await Promise.all([a, b].filter(Boolean).map((p) => p.stop()));
      await ctx?.db.close();
      await storage?.drop();
    });

    const change = (server: ServeProcess, key: string, id: string, attributes: object) =>
      call(server, 'PATCH', `/users/${id}`, { key, body: { data: { type: 'users', id, attributes } } });

    for (const [name, attributes] of [
      ['demote', { role: 'write' }],
      ['disable', { disabled: true }],
    ] as const) {
      test(`two admins who ${name} each other at once: exactly one succeeds, one admin stays (${TRIALS} trials)`, async () => {
        for (let trial = 0; trial < TRIALS; trial++) {
          const team = await createTeam(ctx.db.kysely, `admins ${name} ${trial}`, null, ctx.clock);
          const key = (await createKey(ctx.db.kysely, team.id, 'production', ctx.clock)).key;
          const [x, y] = await Promise.all(
            ['x', 'y'].map(
              async (who) =>
                (
                  await inviteUser(
                    ctx,
                    { teamId: team.id, actor: cliActor() },
                    { email: `${who}-${name}-${trial}-${kind}@example.com`, role: 'admin' },
                    'http://localhost',
                  )
                ).user.id,
            ),
          );
          const answers = await Promise.all([change(a, key, y!, attributes), change(b, key, x!, attributes)]);
          const statuses = answers.map((r) => r.status).sort();
          assert.deepEqual(statuses, [200, 422], `trial ${trial}: ${answers.map((r) => r.text).join(' | ')}`);
          const refused = answers.find((r) => r.status === 422)!;
          assert.deepEqual(refused.body.errors, [
            { status: '422', title: 'Validation failed', detail: 'the team would have no enabled admin left', source: { pointer: '/data/attributes/role' } },
          ]);
          const admins = await ctx.db.kysely
            .selectFrom('users')
            .select('id')
            .where('team_id', '=', team.id)
            .where('role', '=', 'admin')
            .where('disabled_at', 'is', null)
            .execute();
          assert.equal(admins.length, 1, `trial ${trial}`);
        }
      });
    }
  });
}
