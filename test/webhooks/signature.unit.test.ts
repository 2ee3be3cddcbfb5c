import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { refusedBecause } from '../../src/webhooks/address.js';
import { newSecret, sign } from '../../src/webhooks/signature.js';
import { RETRY_SCHEDULE_SECONDS, nextAttemptAt } from '../../src/webhooks/worker.js';

const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors/standard_webhooks.json', import.meta.url), 'utf8'));

describe('Standard Webhooks signatures', () => {
  for (const v of vectors.vectors) {
    test(`reproduces vector ${v.name}`, () => {
      assert.equal(`${v.msg_id}.${v.timestamp}.${v.payload}`, v.signing_string);
      assert.equal(sign([v.secret], v.msg_id, v.timestamp, v.payload), v.expected_signature);
    });
  }

  test('two secrets give two space-separated entries, new first', () => {
    const [a, b] = vectors.vectors;
    assert.equal(sign([a.secret, b.secret], a.msg_id, a.timestamp, a.payload), `${a.expected_signature} ${sign([b.secret], a.msg_id, a.timestamp, a.payload)}`);
  });

  test('a new secret is whsec_ and base64 of 32 bytes', () => {
    const secret = newSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
  });
});

describe('outbound address rules', () => {
  const refused = [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.251',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:c0a8:0101::1',
    'fe80::1',
    'fd12:3456::1',
    'ff02::1',
  ];
  const allowed = ['8.8.8.8', '1.1.1.1', '100.128.0.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];
  for (const a of refused) test(`refuses ${a}`, () => assert.notEqual(refusedBecause(a), null));
  for (const a of allowed) test(`allows ${a}`, () => assert.equal(refusedBecause(a), null));
});

describe('retry schedule', () => {
  test('0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then no more; jitter stays within 10 %', () => {
    assert.deepEqual(RETRY_SCHEDULE_SECONDS, [0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    for (let n = 1; n < RETRY_SCHEDULE_SECONDS.length; n++) {
      const base = RETRY_SCHEDULE_SECONDS[n] * 1e6;
      assert.equal(
        nextAttemptAt(n, 0, 1, () => 0.5),
        base,
      );
      assert.ok(nextAttemptAt(n, 0, 1, () => 0)! >= base * 0.9 && nextAttemptAt(n, 0, 1, () => 0.9999)! <= base * 1.1);
    }
    assert.equal(nextAttemptAt(RETRY_SCHEDULE_SECONDS.length, 0, 1), null);
  });
});

describe('sealed secrets', () => {
  test('open(seal(x)) is x; another master key or purpose, or a changed byte, cannot open it', async () => {
    const { randomBytes } = await import('node:crypto');
    const { sealer, SealError } = await import('../../src/secrets/index.js');
    const master = randomBytes(32);
    const sealed = sealer(master, 'webhook-secret').seal('whsec_abc');
    assert.ok(!sealed.includes('whsec_abc'));
    assert.equal(sealer(master, 'webhook-secret').open(sealed), 'whsec_abc');
    assert.notEqual(sealer(master, 'webhook-secret').seal('whsec_abc'), sealed, 'a fresh IV each time');
    assert.throws(() => sealer(randomBytes(32), 'webhook-secret').open(sealed), SealError);
    assert.throws(() => sealer(master, 'chip-key').open(sealed), SealError);
    const parts = sealed.split('.');
    const data = Buffer.from(parts[3], 'base64url');
    data[0] ^= 1;
    assert.throws(() => sealer(master, 'webhook-secret').open([...parts.slice(0, 3), data.toString('base64url')].join('.')));
  });
});
