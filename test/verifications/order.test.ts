// Scans of one tag are decided in the order the server received them (docs/throughput.md#arrival-order),
// whatever the request waited on: many chips tapped in order, their scans
// pipelined on a few keep-alive connections (so that the order of receipt is
// certain), across a forced API-key cache expiry (every request of that wave
// waits for the database while later waves could be served from memory), a
// forgotten tag lookup cache, and a background refresh of the key. Zero replays.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { DATABASES, JSON_API, call, sharedServer, type TestServer } from '../kit/harness.js';
import { emulated, tapUrl } from './helpers.js';

const TAGS = 24;
const CONNECTIONS = 6;
const WAVES = 8;

interface Answer {
  status: number;
  body: any;
}

/** A keep-alive HTTP/1.1 connection that pipelines requests and reads the answers in order. */
class Pipeline {
  private buffer = Buffer.alloc(0);
  private readonly waiting: ((answer: Answer) => void)[] = [];
  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.parse();
    });
  }

  static open(origin: string): Promise<Pipeline> {
    const url = new URL(origin);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => resolve(new Pipeline(socket)));
      socket.once('error', reject);
    });
  }

  /** Writes all the requests in one write, in order; resolves with their answers. */
  send(path: string, key: string, bodies: string[]): Promise<Answer>[] {
    const text = bodies
      .map(
        (body) =>
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: ${JSON_API}\r\nAccept: ${JSON_API}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      )
      .join('');
    const answers = bodies.map(() => new Promise<Answer>((resolve) => this.waiting.push(resolve)));
    this.socket.write(text);
    return answers;
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buffer.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (this.buffer.length < end + 4 + length) return;
      const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.waiting.shift()!({ status: Number(head.split(' ')[1]), body: body ? JSON.parse(body) : null });
    }
  }

  close(): void {
    this.socket.end();
  }
}

const document = (url: string) => JSON.stringify({ data: { type: 'verifications', attributes: { url } } });
/** Lets the server read what was written (and run its lookups) before the next wave; not an assertion. */
const pause = () => new Promise((r) => setTimeout(r, 1));

async function tapsInOrder(server: TestServer, teamId: string, count = TAGS, taps = WAVES): Promise<{ tags: string[]; urls: string[][] }> {
  const tags: string[] = [];
  const urls: string[][] = [];
  for (let t = 0; t < count; t++) {
    const tag = await emulated(server, teamId, 'ntag_424_dna');
    tags.push(tag.id);
    const mine: string[] = [];
    for (let w = 0; w < taps; w++) mine.push(await tapUrl(server, tag.id));
    urls.push(mine);
  }
  return { tags, urls };
}

for (const kind of DATABASES) {
  describe(`scans decided in arrival order (${kind})`, () => {
    const suite = sharedServer(kind);

    test('in-order taps of many chips, pipelined, across a forced key-cache expiry and a refresh: every fresh tap genuine', async () => {
      const { server, world } = suite;
      const { tags, urls } = await tapsInOrder(server, world.teamId);
      const cache = server.ctx.principals;
      let offset = 0;
      cache.clock = () => Date.now() + offset;
      const connections = await Promise.all(Array.from({ length: CONNECTIONS }, () => Pipeline.open(server.origin)));
      const answers: Promise<Answer>[][] = tags.map(() => []);
      try {
        for (let w = 0; w < WAVES; w++) {
          // Wave 2: the key's entry has expired, so its requests wait for the database
          // while wave 3's (the entry refilled by then) need not.
          if (w === 2) offset += cache.ttlMs + 1;
          // Wave 4: the tag lookups are forgotten: each tag's scan asks the database.
          if (w === 4) server.ctx.scanLookups.clear();
          // Wave 6: the entry is old enough to be refreshed in the background.
          if (w === 6) offset += cache.refreshMs + 1;
          connections.forEach((connection, c) => {
            const mine = tags.map((_, t) => t).filter((t) => t % CONNECTIONS === c);
            const sent = connection.send(
              '/api/v1/verifications',
              world.sandbox.key,
              mine.map((t) => document(urls[t]![w]!)),
            );
            mine.forEach((t, i) => answers[t]!.push(sent[i]!));
          });
          await pause();
        }
        const results = await Promise.all(answers.map((a) => Promise.all(a)));
        for (const [t, mine] of results.entries()) {
          assert.deepEqual(
            mine.map((a) => [a.status, a.body?.data?.attributes?.reason]),
            Array.from({ length: WAVES }, () => [201, 'ok']),
            `tag ${t}`,
          );
          assert.deepEqual(
            mine.map((a) => a.body.data.attributes.read_counter),
            Array.from({ length: WAVES }, (_, i) => i + 1),
          );
        }
      } finally {
        cache.clock = Date.now;
        for (const connection of connections) connection.close();
      }

      // Stored: one genuine verification per counter, none replayed; taps paired into sessions in order.
      const db = server.ctx.db.kysely;
      const rows = await db
        .selectFrom('verifications')
        .select(['tag_id', 'reason', 'read_counter', 'session_id', 'scanned_at'])
        .where('tag_id', 'in', tags)
        .execute();
      assert.equal(rows.length, TAGS * WAVES);
      assert.equal(rows.filter((r) => r.reason !== 'ok').length, 0);
      for (const tag of tags) {
        const mine = rows.filter((r) => r.tag_id === tag).sort((a, b) => a.read_counter! - b.read_counter!);
        assert.deepEqual(
          mine.map((r) => r.read_counter),
          Array.from({ length: WAVES }, (_, i) => i + 1),
        );
        // Decided in counter order, so scanned_at rises with the counter.
        assert.ok(mine.every((r, i) => i === 0 || r.scanned_at > mine[i - 1]!.scanned_at));
        for (let i = 0; i < WAVES; i += 2) {
          assert.equal(mine[i]!.session_id, mine[i + 1]!.session_id);
          if (i > 0) assert.notEqual(mine[i]!.session_id, mine[i - 1]!.session_id);
        }
        const chip = await db.selectFrom('chips').select(['last_counter', 'session_id']).where('tag_id', '=', tag).executeTakeFirstOrThrow();
        assert.deepEqual(chip, { last_counter: WAVES, session_id: null });
        const sessions = await db.selectFrom('sessions').select('id').where('tag_id', '=', tag).execute();
        assert.equal(sessions.length, WAVES / 2);
      }
    });

    test('a request whose body trickles in holds no later scan back, and is decided once its body is in', async () => {
      const { server, world } = suite;
      const { tags, urls } = await tapsInOrder(server, world.teamId, 2, 1);
      const slow = document(urls[0]![0]!);
      const origin = new URL(server.origin);
      const socket = connect(Number(origin.port), origin.hostname);
      await new Promise((resolve) => socket.once('connect', resolve));
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
      // Headers and half the body now; the rest only after another scan has been answered.
      socket.write(
        `POST /api/v1/verifications HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${world.sandbox.key}\r\nContent-Type: ${JSON_API}\r\nContent-Length: ${Buffer.byteLength(slow)}\r\n\r\n${slow.slice(0, 40)}`,
      );
      await pause();
      const other = await call(server, 'POST', '/verifications', { key: world.sandbox.key, body: JSON.parse(document(urls[1]![0]!)) });
      assert.equal(other.status, 201);
      assert.equal(other.body.data.attributes.reason, 'ok');
      assert.equal(other.body.data.attributes.tag_id, tags[1]);
      assert.equal(answer, '');
      socket.write(slow.slice(40));
      while (!answer.includes('"data"') || !answer.endsWith('}}}')) await new Promise((resolve) => socket.once('data', resolve));
      socket.end();
      assert.match(answer, /^HTTP\/1\.1 201 /);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
      assert.equal(body.data.attributes.reason, 'ok');
      assert.equal(body.data.attributes.tag_id, tags[0]);
    });
  });
}
