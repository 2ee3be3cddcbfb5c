// `tapproof serve` killed with SIGKILL at each round trip of a rekey, before the request reaches it and
// after it committed the request (its answer lost): the chip's taps verify, a rerun once the abandoned
// write has expired completes the rekey, and the taps verify after.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpTransport, WriterClient, type Transport } from '../../src/writer/relay.js';
import { startServe } from '../cli/process.js';
import { DATABASES, sharedServer } from '../kit/harness.js';
import { cardLink, chipOf, createdTag, eventsOf, newCard, rekey, tapsGenuine, writeTag } from './helpers.js';

/** The requests of a rekey: the start, then the answers to the probe, the authentication and the rekey batch. */
const ROUND_TRIPS = ['start', 'probe answers', 'authentication answer', 'rekey batch answers'];

for (const kind of DATABASES) {
  describe(`writer rekey, server killed (${kind})`, () => {
    const suite = sharedServer(kind);

    for (const [index, request] of ROUND_TRIPS.entries()) {
      for (const when of ['before', 'after'] as const) {
        it(`kill -9 ${when} the ${request}: taps verify, a rerun rekeys`, async () => {
          const { server, world } = suite;
          const key = world.sandbox.key;
          const { id } = await createdTag(server, key);
          const card = newCard();
          assert.equal((await writeTag(server, key, id, card)).status, 'configured');
          const first = await tapsGenuine(server, key, card, id);

          const serve = await startServe(server.storage.env);
          const http = new HttpTransport(serve.base, key);
          let sent = 0;
          const killing: Transport = {
            async post(path, body) {
              const n = sent++;
              if (n === index && when === 'before') await serve.stop('SIGKILL');
              const answer = await http.post(path, body);
              if (n === index && when === 'after') {
                await serve.stop('SIGKILL');
                throw new Error('the server died before answering');
              }
              return answer;
            },
          };
          await assert.rejects(new WriterClient(killing).write(id, cardLink(card), () => {}, 'rekey'));

          card.powerOn();
          const between = await tapsGenuine(server, key, card, id);
          assert.ok(between.counter > first.counter);
          // The write the killed server left running expires (120 s later); then a rerun goes ahead.
          await server.ctx.db.kysely.updateTable('writer_sessions').set({ expires_at: 0 }).where('tag_id', '=', id).where('result', 'is', null).execute();
          const rerun = await rekey(server, key, id, card);
          assert.equal(rerun.status, 'rekeyed', JSON.stringify(rerun));
          const after = await tapsGenuine(server, key, card, id);
          assert.ok(after.counter > between.counter);
          // Killed after committing the last answer, the rekey was done: the rerun is a rekey of its own.
          const committed = index === ROUND_TRIPS.length - 1 && when === 'after';
          assert.deepEqual(await chipOf(server, id).then((c) => [c.key_version, c.pending_key_version]), [committed ? 3 : 2, null]);
          assert.deepEqual(
            (await eventsOf(server, id)).map((e) => e.type),
            ['tag.created', 'tag.configured', 'tag.rekeyed', ...(committed ? ['tag.rekeyed'] : [])],
          );
        });
      }
    }
  });
}
