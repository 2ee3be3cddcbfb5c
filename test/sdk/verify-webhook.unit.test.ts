// verifyWebhook of @tapproof/sdk: the published Standard Webhooks vectors, the
// two signatures the platform sends while a secret rotates (signed by the
// platform's own signer), and the five-minute timestamp tolerance.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { verifyWebhook, WebhookVerificationError } from '@tapproof/sdk';
import { newSecret, sign } from '../../src/webhooks/signature.js';

const vectors: { name: string; secret: string; msg_id: string; timestamp: number; payload: string; expected_signature: string }[] = JSON.parse(
  readFileSync(new URL('../fixtures/vectors/standard_webhooks.json', import.meta.url), 'utf8'),
).vectors;

const refused = (promise: Promise<unknown>, message: RegExp) =>
  assert.rejects(promise, (e: unknown) => e instanceof WebhookVerificationError && message.test(e.message));

describe('verifyWebhook', () => {
  test('every Standard Webhooks vector verifies, as headers object and as Headers, from a string or bytes', async () => {
    assert.equal(vectors.length, 3);
    for (const v of vectors) {
      const headers = { 'webhook-id': v.msg_id, 'webhook-timestamp': String(v.timestamp), 'webhook-signature': v.expected_signature };
      const now = v.timestamp * 1000;
      assert.deepEqual(await verifyWebhook({ secret: v.secret, headers, body: v.payload, now }), JSON.parse(v.payload), v.name);
      assert.deepEqual(
        await verifyWebhook({ secret: v.secret, headers: new Headers(headers), body: new TextEncoder().encode(v.payload), now }),
        JSON.parse(v.payload),
        v.name,
      );
      // One byte of the body, the id or the signature changed: refused.
      await refused(verifyWebhook({ secret: v.secret, headers, body: v.payload + ' ', now }), /no signature matches/);
      await refused(verifyWebhook({ secret: v.secret, headers: { ...headers, 'webhook-id': v.msg_id + 'x' }, body: v.payload, now }), /no signature matches/);
      await refused(verifyWebhook({ secret: newSecret(), headers, body: v.payload, now }), /no signature matches/);
    }
  });

  test('while the platform rotates a secret it signs with both; either secret verifies, a third does not', async () => {
    const [current, previous] = [newSecret(), newSecret()];
    const timestamp = 1_750_000_000;
    const body = JSON.stringify({ type: 'tag.deleted', timestamp: '2025-06-15T15:06:40.000000Z', data: { type: 'tags', id: 'tag_x', attributes: {} } });
    const signature = sign([current, previous], 'evt_rotation', timestamp, body);
    assert.equal(signature.split(' ').length, 2);
    const headers = { 'webhook-id': 'evt_rotation', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    const now = timestamp * 1000;
    for (const secret of [current, previous, [newSecret(), previous]]) assert.equal((await verifyWebhook({ secret, headers, body, now })).type, 'tag.deleted');
    await refused(verifyWebhook({ secret: newSecret(), headers, body, now }), /no signature matches/);
    // Entries of another version or malformed ones are skipped, not fatal.
    const mixed = { ...headers, 'webhook-signature': `v2,abc v1,%%% ${signature}` };
    assert.equal((await verifyWebhook({ secret: previous, headers: mixed, body, now })).type, 'tag.deleted');
  });

  test('a timestamp more than 5 minutes from now is refused, either way; exactly 5 minutes is accepted', async () => {
    const secret = newSecret();
    const timestamp = 1_750_000_000;
    const body = '{"type":"tag.created"}';
    const headers = { 'webhook-id': 'evt_time', 'webhook-timestamp': String(timestamp), 'webhook-signature': sign([secret], 'evt_time', timestamp, body) };
    for (const offset of [-300, 0, 300])
      assert.equal((await verifyWebhook({ secret, headers, body, now: (timestamp + offset) * 1000 })).type, 'tag.created', `${offset}`);
    for (const offset of [-301, 301, 86_400]) await refused(verifyWebhook({ secret, headers, body, now: (timestamp + offset) * 1000 }), /more than 5 minutes/);
    await refused(verifyWebhook({ secret, headers, body }), /more than 5 minutes/);
  });

  test('missing headers, a non-numeric timestamp, or a body that is not JSON are refused', async () => {
    const secret = newSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'evt_h', 'webhook-timestamp': String(timestamp), 'webhook-signature': sign([secret], 'evt_h', timestamp, 'not json') };
    for (const name of Object.keys(headers)) {
      const partial: Record<string, string> = { ...headers };
      delete partial[name];
      await refused(verifyWebhook({ secret, headers: partial, body: 'not json' }), /missing/);
    }
    await refused(verifyWebhook({ secret, headers: { ...headers, 'webhook-timestamp': '1e9' }, body: 'not json' }), /not a number/);
    await refused(verifyWebhook({ secret, headers, body: 'not json' }), /not JSON/);
  });

  test('a malformed secret is refused as WebhookVerificationError, without its text, whatever the delivery', async () => {
    const secret = newSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const body = '{"type":"tag.created"}';
    const headers = { 'webhook-id': 'evt_s', 'webhook-timestamp': String(timestamp), 'webhook-signature': sign([secret], 'evt_s', timestamp, body) };
    const cases: [unknown, RegExp][] = [
      ['whsec_!!!', /not whsec_ followed by base64/],
      ['not a secret!', /not whsec_ followed by base64/],
      ['whsec_', /is empty/],
      ['', /is empty/],
      [undefined, /must be a whsec_… string, not undefined/],
      [null, /not null/],
      [42, /not number/],
      [[], /no webhook secret/],
      [[secret, 'whsec_!!!'], /not whsec_ followed by base64/],
    ];
    for (const [bad, message] of cases) {
      await refused(verifyWebhook({ secret: bad as string, headers, body }), message);
      await refused(verifyWebhook({ secret: bad as string, headers: {}, body }), message);
    }
    await assert.rejects(verifyWebhook({ secret: 'whsec_!!!', headers, body }), (e: Error) => !e.message.includes('!!!'));
    // The base64 alone, as other Standard Webhooks libraries take it, still verifies.
    assert.equal((await verifyWebhook({ secret: secret.slice('whsec_'.length), headers, body })).type, 'tag.created');
  });
});
