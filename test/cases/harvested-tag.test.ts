// The harvested-tag story (docs/cases.md) through the real API on both engines: a chip's URLs read and
// kept, then opened and replayed from two countries, make exactly one case with exactly those scans and
// signals; a person of the team acknowledges it, writes a note and resolves it as counterfeit_confirmed,
// each step audited and announced; the tag's next flagged scan opens a second case linked to the first.
// The person asked to be emailed: one mail arrives at a real SMTP server for the opening, and the next
// day's digest lists the case as opened and resolved.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DATABASES, call, startServer, type SeededTeam, type TestServer } from '../kit/harness.js';
import { ISO_MICROS, assertJsonApi, assertValidation } from '../kit/assertions.js';
import { emulated, tapUrl, verify } from '../verifications/helpers.js';
import { authCall, invited, redeemed, type Browserish } from '../users/helpers.js';
import { startSmtp, type TestSmtp } from '../kit/smtp.js';
import { MailSender } from '../../src/mail/delivery.js';
import { mailRenderers } from '../../src/worker.js';

const US = '8.8.8.8';
const DE = '5.9.0.1';
const GB = '81.2.69.142';
const HOUR = 3_600_000;

for (const kind of DATABASES) {
  describe(`a harvested tag becomes one case (${kind})`, () => {
    let server: TestServer;
    let world: SeededTeam;
    let person: { id: string; session: Browserish };
    let webhooks: { cases: string; tags: string };
    let smtp: TestSmtp;
    let mail: MailSender;
    const CONSOLE = 'https://console.example.com';

    before(async () => {
      smtp = await startSmtp();
      server = await startServer(kind, { TAPPROOF_SMTP_URL: smtp.url, TAPPROOF_PUBLIC_URL: CONSOLE });
      mail = new MailSender(server.ctx, server.ctx.config.mail!, mailRenderers(server.ctx));
      world = await server.seedTeam();
      const { id, token } = await invited(server, world.teamId, `analyst-${kind}@example.com`, 'write');
      person = { id, session: await redeemed(server, token) };
      const webhook = async (events?: string[]) =>
        (
          await call(server, 'POST', '/webhooks', {
            key: world.sandbox.key,
            body: { data: { type: 'webhooks', attributes: { url: 'https://hooks.example.com/cases', ...(events ? { events } : {}) } } },
          })
        ).body.data.id as string;
      webhooks = { cases: await webhook(['case.opened', 'case.updated']), tags: await webhook() };
      const chosen = await asPerson('PATCH', '/profile/notifications', {
        data: { type: 'notification-settings', attributes: { case_opened: true, daily_digest: true, sandbox: true } },
      });
      assert.equal(chosen.status, 200, chosen.text);
    });
    after(async () => {
      mail.close();
      await server.close();
      await smtp.close();
    });

    async function scan(url: string, clientIp: string) {
      const response = await verify(server, world.sandbox.key, url, { client_ip: clientIp });
      assert.equal(response.status, 201, response.text);
      return response.body.data as { id: string; attributes: { genuine: boolean; reason: string; signals: string[] } };
    }
    const asPerson = (method: string, path: string, body?: unknown) => authCall(server, method, path, { as: person.session, api: true, body });
    const events = async (tagId: string) =>
      (
        await server.ctx.db.kysely
          .selectFrom('events')
          .select(['id', 'type', 'payload'])
          .where('tag_id', '=', tagId)
          .where('type', 'in', ['case.opened', 'case.updated'])
          .orderBy('seq')
          .execute()
      ).map((e) => ({ id: e.id, ...(JSON.parse(e.payload) as { type: string; data: any; changes?: any; tag: any }) }));
    const deliveredTo = async (eventIds: string[]) =>
      (await server.ctx.db.kysely.selectFrom('deliveries').select('webhook_id').where('event_id', 'in', eventIds).execute()).map((d) => d.webhook_id);

    test('harvested, replayed from two countries, triaged and resolved; the next flagged scan opens a linked case', async () => {
      const tag = await emulated(server, world.teamId, 'ntag_424_dna');
      // The owner's genuine scan in the United States.
      const home = await scan(await tapUrl(server, tag.id), US);
      assert.deepEqual(home.attributes.signals, []);
      // Eight URLs read from the chip and kept, never opened.
      const harvested: string[] = [];
      for (let i = 0; i < 8; i++) harvested.push(await tapUrl(server, tag.id));
      server.clock.advance(HOUR);
      // The newest opened in Germany an hour later: genuine, 8 counters past the last, in another country.
      const opened = await scan(harvested[7]!, DE);
      assert.deepEqual([opened.attributes.genuine, opened.attributes.signals], [true, ['counter_gap', 'country_jump']]);
      // Past the tag's session (within it, the same URL is a page reload and answers the original).
      server.clock.advance(HOUR / 2);
      // Replayed from Britain and Germany: refused, a burst from the third refusal on; an older one too.
      const replays = [await scan(harvested[7]!, GB), await scan(harvested[7]!, DE), await scan(harvested[7]!, GB), await scan(harvested[2]!, GB)];
      assert.deepEqual(
        replays.map((r) => [r.attributes.reason, r.attributes.signals]),
        [
          ['replayed', []],
          ['replayed', []],
          ['replayed', ['replay_burst']],
          ['replayed', ['replay_burst']],
        ],
      );

      // Exactly one case, with exactly the flagged scans.
      const list = await asPerson('GET', '/cases');
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body.meta.counts, { open: 1, acknowledged: 0, resolved: 0 });
      assert.equal(list.body.data.length, 1);
      const caseId = list.body.data[0].id as string;
      assert.match(caseId, /^case_[0-9A-Za-z]{22}$/);
      const read = await call(server, 'GET', `/cases/${caseId}`, { key: world.sandbox.key });
      assert.equal(read.status, 200, read.text);
      assertJsonApi(read);
      const a = read.body.data.attributes;
      assert.deepEqual(
        {
          tag_id: a.tag_id,
          state: a.state,
          scans: a.scans,
          signals: a.signals,
          by_signal: a.by_signal,
          countries: a.countries,
          assignee_id: a.assignee_id,
          resolution: a.resolution,
          previous_case_id: a.previous_case_id,
        },
        {
          tag_id: tag.id,
          state: 'open',
          scans: 3,
          signals: ['counter_gap', 'country_jump', 'replay_burst'],
          by_signal: { counter_gap: 1, country_jump: 1, replay_burst: 2, tamper_opened: 0, tamper_open: 0 },
          countries: ['DE', 'GB'],
          assignee_id: null,
          resolution: null,
          previous_case_id: null,
        },
      );
      const first = await server.ctx.db.kysely.selectFrom('verifications').select('scanned_at').where('id', '=', opened.id).executeTakeFirstOrThrow();
      assert.equal(Date.parse(a.opened_at) * 1000 + Number(a.opened_at.slice(23, 26)), first.scanned_at);
      assert.match(a.last_seen_at, ISO_MICROS);
      // Its scans newest first, the jump pointing at the scan it came from, which is included beside them.
      assert.deepEqual(
        read.body.included.map((r: any) => [r.type, r.id, r.meta?.in_case, r.meta?.jumped_from]),
        [
          ['verifications', replays[3]!.id, true, null],
          ['verifications', replays[2]!.id, true, null],
          ['verifications', opened.id, true, home.id],
          ['verifications', home.id, false, null],
        ],
      );
      assert.equal(read.body.included[3].attributes.country, 'US');
      assert.equal(read.body.included[2].attributes.country, 'DE');
      // Filters: by signal, by tag, by state; a filter that matches none.
      for (const [query, count] of [
        ['signal=country_jump', 1],
        ['signal=tamper_open', 0],
        [`tag_id=${tag.id}`, 1],
        ['state=resolved', 0],
        ['assignee_id=none', 1],
      ] as const)
        assert.equal((await call(server, 'GET', `/cases?${query}`, { key: world.sandbox.key })).body.data.length, count, query);

      // Announced once: case.opened, only to the webhook that lists it.
      const opening = await events(tag.id);
      assert.deepEqual(
        opening.map((e) => [e.type, e.data.id, e.tag.id]),
        [['case.opened', caseId, tag.id]],
      );
      assert.deepEqual(await deliveredTo(opening.map((e) => e.id)), [webhooks.cases]);
      // And emailed once, to the person who asked, linking the case.
      assert.equal(await mail.round(), 1);
      assert.equal(await mail.round(), 0);
      assert.deepEqual(
        smtp.received.map((m) => [m.to, m.subject]),
        [[[`analyst-${kind}@example.com`], `[sandbox] Case opened: tag ${tag.id}`]],
      );
      assert.ok(smtp.received[0]!.text.includes(`${CONSOLE}/console/cases/${caseId}`), smtp.received[0]!.text);
      assert.ok(smtp.received[0]!.html.includes(`href="${CONSOLE}/console/cases/${caseId}"`), smtp.received[0]!.html);
      assert.ok(smtp.received[0]!.text.includes('3 flagged scans (counter gap, country jump, replay burst) from DE, GB'), smtp.received[0]!.text);

      // Resolving skips no step it needs: a resolution is required.
      assertValidation(await asPerson('PATCH', `/cases/${caseId}`, { data: { type: 'cases', attributes: { state: 'resolved' } } }), [
        '/data/attributes/resolution',
      ]);
      // The person takes it and acknowledges it, writes a note, and resolves it.
      const acknowledged = await asPerson('PATCH', `/cases/${caseId}`, {
        data: { type: 'cases', attributes: { state: 'acknowledged', assignee_id: person.id } },
      });
      assert.equal(acknowledged.status, 200, acknowledged.text);
      assert.deepEqual([acknowledged.body.data.attributes.state, acknowledged.body.data.attributes.assignee_id], ['acknowledged', person.id]);
      assert.match(acknowledged.body.data.attributes.acknowledged_at, ISO_MICROS);
      const note = await asPerson('POST', `/cases/${caseId}/notes`, {
        data: { type: 'case-notes', attributes: { body: 'Labels seized in Hamburg.\nThe chip was read at the warehouse.' } },
      });
      assert.equal(note.status, 201, note.text);
      assert.deepEqual(note.body.data.attributes.author, { type: 'user', id: person.id });
      const resolved = await asPerson('PATCH', `/cases/${caseId}`, {
        data: { type: 'cases', attributes: { state: 'resolved', resolution: 'counterfeit_confirmed' } },
      });
      assert.equal(resolved.status, 200, resolved.text);
      assert.deepEqual(
        [resolved.body.data.attributes.state, resolved.body.data.attributes.resolution, resolved.body.data.attributes.resolution_note],
        ['resolved', 'counterfeit_confirmed', null],
      );
      // A resolved case stays so, naming the field.
      assertValidation(await asPerson('PATCH', `/cases/${caseId}`, { data: { type: 'cases', attributes: { state: 'open' } } }), ['/data/attributes/state']);
      assert.deepEqual((await call(server, 'GET', '/cases', { key: world.sandbox.key })).body.meta.counts, { open: 0, acknowledged: 0, resolved: 1 });
      // Every change audited, as the person who made it.
      const audit = await server.ctx.db.kysely
        .selectFrom('audit_events')
        .select(['operation', 'actor_type', 'actor_id', 'changes'])
        .where('resource_id', '=', caseId)
        .orderBy('occurred_at')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((r) => [r.operation, r.actor_type, r.actor_id, JSON.parse(r.changes!)]),
        [
          ['case.update', 'user', person.id, { state: { from: 'open', to: 'acknowledged' }, assignee_id: { from: null, to: person.id } }],
          ['case.add_note', 'user', person.id, { note: note.body.data.id }],
          ['case.update', 'user', person.id, { state: { from: 'acknowledged', to: 'resolved' }, resolution: { from: null, to: 'counterfeit_confirmed' } }],
        ],
      );
      // And announced: case.updated for each, saying what changed.
      const triage = (await events(tag.id)).slice(1);
      assert.deepEqual(
        triage.map((e) => [e.type, e.data.attributes.state, e.changes]),
        [
          ['case.updated', 'acknowledged', { state: { from: 'open', to: 'acknowledged' }, assignee_id: { from: null, to: person.id } }],
          ['case.updated', 'acknowledged', { note: { id: note.body.data.id, body: 'Labels seized in Hamburg.\nThe chip was read at the warehouse.' } }],
          ['case.updated', 'resolved', { state: { from: 'acknowledged', to: 'resolved' }, resolution: { from: null, to: 'counterfeit_confirmed' } }],
        ],
      );
      // The thread in the case.
      const thread = (await call(server, 'GET', `/cases/${caseId}`, { key: world.sandbox.key })).body.included.filter((r: any) => r.type === 'case-notes');
      assert.deepEqual(
        thread.map((n: any) => n.id),
        [note.body.data.id],
      );

      // The tag's next flagged scan opens a new case that links the resolved one.
      const again = await scan(harvested[7]!, DE);
      assert.deepEqual(again.attributes.signals, ['replay_burst']);
      const cases = await call(server, 'GET', `/cases?tag_id=${tag.id}`, { key: world.sandbox.key });
      assert.deepEqual(
        cases.body.data.map((c: any) => [c.attributes.state, c.attributes.scans, c.attributes.previous_case_id]),
        [
          ['open', 1, caseId],
          ['resolved', 3, null],
        ],
      );
      assert.deepEqual(
        (await events(tag.id)).map((e) => e.type),
        ['case.opened', 'case.updated', 'case.updated', 'case.updated', 'case.opened'],
      );
      // The second opening is emailed as the first was.
      assert.equal(await mail.round(), 1);
      assert.equal(smtp.received[1]!.subject, `[sandbox] Case opened: tag ${tag.id}`);
      assert.ok(smtp.received[1]!.text.includes(`It follows the tag's resolved case ${caseId}.`), smtp.received[1]!.text);
      // The next day's digest lists both cases, the first opened and resolved; one digest, however often the job runs.
      server.clock.advance(24 * HOUR);
      assert.equal(await mail.round(), 1);
      assert.equal(await mail.round(), 0);
      const digest = smtp.received[2]!;
      assert.equal(smtp.received.length, 3);
      assert.match(digest.subject, /^Cases on \d{4}-\d{2}-\d{2}: 0 open, 0 new, 0 resolved; \[sandbox\] 1 open, 2 new, 1 resolved$/);
      assert.ok(digest.text.includes(`Opened in the last 24 hours: 2\n  ${tag.id}: 1 flagged scan (replay burst) from DE`), digest.text);
      assert.ok(digest.text.includes(`\n  ${tag.id}: 3 flagged scans (counter gap, country jump, replay burst) from DE, GB`), digest.text);
      assert.ok(digest.text.includes(`Resolved in the last 24 hours: 1\n  ${tag.id}: counterfeit_confirmed — ${CONSOLE}/console/cases/${caseId}`), digest.text);
    });
  });
}
