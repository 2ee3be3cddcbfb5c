// @tapproof/sdk's parts that need no server (packages/sdk/src): the retry policy and server hints, the
// error mapping, page walking, chunking, list filters and the thresholds update over a fake transport,
// and requests over a fake fetch.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TapproofBatchError, TapproofError, WebhookVerificationError } from '../../packages/sdk/src/errors.js';
import { keyset, paginate } from '../../packages/sdk/src/pages.js';
import { MIN_DELAY_MS, RetryPolicy, serverWaitMs } from '../../packages/sdk/src/retry.js';
import { Teams } from '../../packages/sdk/src/resources.js';
import { CHUNK, Tags } from '../../packages/sdk/src/tags.js';
import { apiBase, resourcePath, Transport, type RequestOptions } from '../../packages/sdk/src/transport.js';
import { Verifications } from '../../packages/sdk/src/verifications.js';

describe('RetryPolicy', () => {
  test('defaults: 6 retries, 3 attempts, 5 minutes for the rate limit; waits of 1, 2, 4, 8, 16 s then 30 s', () => {
    const policy = new RetryPolicy();
    assert.deepEqual([policy.maxRetries, policy.attempts, policy.rateLimitWaitMs], [6, 3, 300_000]);
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 20].map((n) => policy.delay(n)),
      [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000],
    );
  });

  test('the first wait never falls below 100 ms, however small baseDelayMs is', () => {
    assert.equal(MIN_DELAY_MS, 100);
    for (const baseDelayMs of [0, 1, 99]) {
      const policy = new RetryPolicy({ baseDelayMs });
      assert.deepEqual([policy.delay(0), policy.delay(1), policy.delay(2)], [100, 200, 400], String(baseDelayMs));
    }
    assert.deepEqual([new RetryPolicy({ baseDelayMs: 250 }).delay(0), new RetryPolicy({ baseDelayMs: 250 }).delay(3)], [250, 2000]);
  });

  test('the doubling stops at 30 s even from a large base', () => {
    assert.equal(new RetryPolicy({ baseDelayMs: 45_000 }).delay(0), 30_000);
  });

  test('a server hint only lengthens the wait: the longer of the hint and the backoff, even beyond 30 s', () => {
    const policy = new RetryPolicy();
    assert.equal(policy.delay(0, 0), 1000, 'Retry-After: 0 must not make a flood');
    assert.equal(policy.delay(3, 10), 8000);
    assert.equal(policy.delay(0, 5000), 5000);
    assert.equal(policy.delay(10, 45_000), 45_000);
    assert.equal(policy.delay(2, null), 4000);
  });

  test('zero retries and zero rate-limit wait are allowed', () => {
    const policy = new RetryPolicy({ maxRetries: 0, rateLimitWaitMs: 0, attempts: 1 });
    assert.deepEqual([policy.maxRetries, policy.rateLimitWaitMs, policy.attempts], [0, 0, 1]);
  });

  test('counts that are not whole numbers at or above their least are refused', () => {
    for (const maxRetries of [-1, 1.5, NaN, Infinity])
      assert.throws(
        () => new RetryPolicy({ maxRetries }),
        { name: 'TypeError', message: 'retry.maxRetries must be an integer of at least 0' },
        String(maxRetries),
      );
    for (const attempts of [0, -2, 2.5])
      assert.throws(() => new RetryPolicy({ attempts }), { name: 'TypeError', message: 'retry.attempts must be an integer of at least 1' }, String(attempts));
  });

  test('durations that are negative, NaN or not numbers are refused', () => {
    for (const rateLimitWaitMs of [-1, NaN, '100' as unknown as number])
      assert.throws(() => new RetryPolicy({ rateLimitWaitMs }), { name: 'TypeError', message: 'retry.rateLimitWaitMs must be a number of milliseconds' });
    for (const baseDelayMs of [-0.5, NaN])
      assert.throws(() => new RetryPolicy({ baseDelayMs }), { name: 'TypeError', message: 'retry.baseDelayMs must be a number of milliseconds' });
  });
});

describe('serverWaitMs', () => {
  const wait = (headers: Record<string, string>, now?: number) => serverWaitMs(new Headers(headers), now);

  test('Retry-After in seconds (fractions too); a negative one is 0', () => {
    assert.equal(wait({ 'retry-after': '2' }), 2000);
    assert.equal(wait({ 'retry-after': '1.5' }), 1500);
    assert.equal(wait({ 'retry-after': '0' }), 0);
    assert.equal(wait({ 'retry-after': '-3' }), 0);
  });

  test('Retry-After as an HTTP date: the time until it, 0 once past', () => {
    const date = 'Wed, 21 Oct 2026 07:28:00 GMT';
    const at = Date.parse(date);
    assert.equal(wait({ 'retry-after': date }, at - 5000), 5000);
    assert.equal(wait({ 'retry-after': date }, at + 5000), 0);
  });

  test('without a usable Retry-After: RateLimit-Reset, then X-RateLimit-Reset, in seconds', () => {
    assert.equal(wait({ 'ratelimit-reset': '7' }), 7000);
    assert.equal(wait({ 'x-ratelimit-reset': '3' }), 3000);
    assert.equal(wait({ 'ratelimit-reset': '7', 'x-ratelimit-reset': '3' }), 7000);
    assert.equal(wait({ 'retry-after': 'soon', 'ratelimit-reset': '4' }), 4000);
    assert.equal(wait({ 'retry-after': '9', 'ratelimit-reset': '4' }), 9000);
  });

  test('a negative or non-numeric reset is ignored; no hint at all is null', () => {
    assert.equal(wait({ 'ratelimit-reset': '-1', 'x-ratelimit-reset': 'x' }), null);
    assert.equal(wait({ 'ratelimit-reset': '-1', 'x-ratelimit-reset': '2' }), 2000);
    assert.equal(wait({}), null);
    assert.equal(wait({ 'retry-after': 'soon' }), null);
  });
});

describe('TapproofError', () => {
  test('the first JSON:API error gives title, detail, pointer and parameter; all of them are kept', () => {
    const errors = [
      { status: '422', title: 'Validation failed', detail: 'url must be https', source: { pointer: '/data/3/attributes/url' } },
      { status: '422', title: 'Validation failed', detail: 'comment too long', source: { pointer: '/data/4/attributes/comment' } },
    ];
    const error = new TapproofError(422, errors);
    assert.deepEqual(
      {
        name: error.name,
        status: error.status,
        code: error.code,
        title: error.title,
        detail: error.detail,
        pointer: error.pointer,
        parameter: error.parameter,
      },
      {
        name: 'TapproofError',
        status: 422,
        code: 'validation_failed',
        title: 'Validation failed',
        detail: 'url must be https',
        pointer: '/data/3/attributes/url',
        parameter: undefined,
      },
    );
    assert.equal(error.message, 'Validation failed: url must be https');
    assert.equal(error.errors, errors);
    assert.ok(error instanceof Error);
  });

  test('each status the server answers has its code; an unlisted one is http_<status>', () => {
    const codes = [400, 401, 404, 405, 406, 409, 413, 415, 422, 429, 500, 503, 418, 502].map(
      (status) => new TapproofError(status, [{ status: String(status), title: 't' }]).code,
    );
    assert.deepEqual(codes, [
      'bad_request',
      'unauthorized',
      'not_found',
      'method_not_allowed',
      'not_acceptable',
      'conflict',
      'payload_too_large',
      'unsupported_media_type',
      'validation_failed',
      'rate_limited',
      'internal',
      'unavailable',
      'http_418',
      'http_502',
    ]);
  });

  test('a code in the error object wins over the status', () => {
    assert.equal(new TapproofError(0, [{ status: '0', code: 'timeout', title: 'Timeout' }]).code, 'timeout');
  });

  test('without error objects: "Network error" for status 0 (network_error), "HTTP <status>" otherwise; the cause is kept', () => {
    const cause = new Error('ECONNRESET');
    const network = new TapproofError(0, [], { cause });
    assert.deepEqual(
      [network.code, network.title, network.message, network.detail, network.cause],
      ['network_error', 'Network error', 'Network error', undefined, cause],
    );
    assert.deepEqual(network.errors, [{ status: '0', title: 'Network error' }]);
    const bare = new TapproofError(502, []);
    assert.deepEqual([bare.code, bare.title, bare.message], ['http_502', 'HTTP 502', 'HTTP 502']);
  });

  test('a query parameter refusal names the parameter', () => {
    const error = new TapproofError(400, [{ status: '400', title: 'Invalid query parameter', detail: 'bad size', source: { parameter: 'page_size' } }]);
    assert.deepEqual([error.code, error.parameter, error.pointer], ['bad_request', 'page_size', undefined]);
  });
});

describe('TapproofBatchError and WebhookVerificationError', () => {
  test('a batch error says how far the run got and carries the failing chunk’s error', () => {
    const cause = new TapproofError(422, [{ status: '422', title: 'Validation failed' }]);
    const error = new TapproofBatchError(['t1', 't2'], 500, cause);
    assert.deepEqual(
      [error.name, error.message, error.failedChunkStart, error.created, error.cause],
      ['TapproofBatchError', 'entries 500… failed (Validation failed); the 2 entries before them succeeded', 500, ['t1', 't2'], cause],
    );
  });

  test('a webhook verification error is named as such', () => {
    const error = new WebhookVerificationError('no signature');
    assert.deepEqual([error.name, error.message, error instanceof Error], ['WebhookVerificationError', 'no signature', true]);
  });
});

/** A transport that answers each request from `answer` and records what it was asked. */
function fakeTransport(answer: (path: string, options: RequestOptions) => unknown) {
  const calls: { method: string; path: string; options: RequestOptions }[] = [];
  const transport = {
    async request(method: string, path: string, options: RequestOptions) {
      calls.push({ method, path, options });
      return answer(path, options);
    },
  } as unknown as Transport;
  return { transport, calls };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('paginate (numbered pages)', () => {
  test('walks pages of 100 from page 1 until page × page_size reaches the total', async () => {
    const items = Array.from({ length: 250 }, (_, i) => i);
    const { transport, calls } = fakeTransport((_path, { query }) => {
      const page = Number(query!.page);
      const size = Number(query!.page_size);
      return { data: items.slice((page - 1) * size, page * size), meta: { total_count: 250, page, page_size: size } };
    });
    assert.deepEqual(await collect(paginate(transport, '/tags', { q: 'bottle' })), items);
    assert.deepEqual(
      calls.map((c) => [c.method, c.path, c.options.query, c.options.idempotent]),
      [1, 2, 3].map((page) => ['GET', '/tags', { q: 'bottle', page, page_size: 100 }, true]),
    );
  });

  test('a given page_size and starting page are kept; an empty page ends the walk', async () => {
    const { transport, calls } = fakeTransport((_path, { query }) => ({
      data: Number(query!.page) === 3 ? ['c'] : [],
      meta: { total_count: 1000, page: Number(query!.page), page_size: 2 },
    }));
    assert.deepEqual(await collect(paginate(transport, '/tags', { page: 3, page_size: 2 })), ['c']);
    assert.deepEqual(
      calls.map((c) => c.options.query),
      [
        { page: 3, page_size: 2 },
        { page: 4, page_size: 2 },
      ],
    );
  });

  test('the call options go with every request', async () => {
    const signal = new AbortController().signal;
    const { transport, calls } = fakeTransport(() => ({ data: [], meta: { total_count: 0, page: 1, page_size: 100 } }));
    await collect(paginate(transport, '/tags', {}, { signal, timeout: 5 }));
    assert.deepEqual(calls[0]!.options.call, { signal, timeout: 5 });
  });
});

describe('keyset (links.next)', () => {
  test('follows links.next until null, taking only the link’s query, not its path or host', async () => {
    const pages: Record<string, { data: string[]; links: { next: string | null } }> = {
      start: { data: ['a', 'b'], links: { next: 'https://proxy.example/other/prefix/api/v1/verifications?tag_id=t1&cursor=c1' } },
      c1: { data: ['c'], links: { next: '/api/v1/verifications?tag_id=t1&cursor=c2' } },
      c2: { data: [], links: { next: null } },
    };
    const { transport, calls } = fakeTransport((_path, { query }) => pages[String(query!.cursor ?? 'start')]);
    assert.deepEqual(await collect(keyset(transport, '/verifications', { tag_id: 't1' })), ['a', 'b', 'c']);
    assert.deepEqual(
      calls.map((c) => [c.path, c.options.query]),
      [
        ['/verifications', { tag_id: 't1' }],
        ['/verifications', { tag_id: 't1', cursor: 'c1' }],
        ['/verifications', { tag_id: 't1', cursor: 'c2' }],
      ],
    );
  });

  test('a link’s query is decoded; a repeated parameter keeps its last value', async () => {
    let n = 0;
    const { transport, calls } = fakeTransport(() =>
      n++ === 0 ? { data: [1], links: { next: '?since=2026-01-01T00%3A00%3A00Z&reason=ok&reason=replayed' } } : { data: [], links: { next: null } },
    );
    await collect(keyset(transport, '/verifications'));
    assert.deepEqual(calls[1]!.options.query, { since: '2026-01-01T00:00:00Z', reason: 'replayed' });
  });
});

describe('tags in chunks of 500', () => {
  test('1,001 entries are created in three requests of 500, 500 and 1, in order', async () => {
    assert.equal(CHUNK, 500);
    const { transport, calls } = fakeTransport((_path, { body }) => ({
      data: (body as { data: { attributes: { url: string } }[] }).data.map((d) => d.attributes.url),
    }));
    const entries = Array.from({ length: 1001 }, (_, i) => ({ protocol: 'ntag424', url: `https://a.example/${i}` }));
    const created = await new Tags(transport).create(entries as never);
    assert.equal(created.length, 1001);
    assert.equal(created[1000], 'https://a.example/1000');
    assert.deepEqual(
      calls.map((c) => [c.method, c.path, (c.options.body as { data: unknown[] }).data.length, c.options.idempotent]),
      [
        ['POST', '/tags', 500, false],
        ['POST', '/tags', 500, false],
        ['POST', '/tags', 1, false],
      ],
    );
  });

  test('a failing chunk stops the run: a TapproofBatchError with what was done before it', async () => {
    const refusal = new TapproofError(422, [{ status: '422', title: 'Validation failed' }]);
    let n = 0;
    const { transport, calls } = fakeTransport((_path, { body }) => {
      if (n++ === 1) throw refusal;
      return { data: (body as { data: unknown[] }).data.map((_, i) => `tag_${i}`) };
    });
    const entries = Array.from({ length: 1200 }, () => ({ protocol: 'ntag424' }));
    const error = await new Tags(transport).create(entries as never).catch((e: unknown) => e);
    assert.ok(error instanceof TapproofBatchError);
    assert.deepEqual([error.failedChunkStart, error.created.length, error.cause], [500, 500, refusal]);
    assert.equal(calls.length, 2, 'no chunk after the failing one is sent');
  });

  test('an error that is not a TapproofError passes through as it is', async () => {
    const bug = new RangeError('bug');
    const { transport } = fakeTransport(() => {
      throw bug;
    });
    await assert.rejects(new Tags(transport).create([{ protocol: 'ntag424' }] as never), (e) => e === bug);
  });

  test('delete sums deleted and kept over the chunks', async () => {
    const { transport } = fakeTransport((_path, { body }) => {
      const ids = (body as { data: { id: string }[] }).data.map((d) => d.id);
      return { meta: { deleted: ids.filter((id) => !id.endsWith('k')), kept: ids.filter((id) => id.endsWith('k')) } };
    });
    const ids = Array.from({ length: 502 }, (_, i) => (i % 250 === 0 ? `tag_${i}k` : `tag_${i}`));
    const outcome = await new Tags(transport).delete(ids);
    assert.deepEqual([outcome.deleted.length, outcome.kept], [499, ['tag_0k', 'tag_250k', 'tag_500k']]);
  });
});

describe('verifications.list filters and teams.updateThresholds', () => {
  const emptyPage = () => ({ data: [], links: { next: null } });

  test('genuine and flagged are booleans sent as "true"/"false"; signal as it is; Dates as ISO 8601; unset ones left out', async () => {
    const { transport, calls } = fakeTransport(emptyPage);
    const verifications = new Verifications(transport);
    await collect(verifications.list({ flagged: true, signal: 'counter_gap' }));
    await collect(verifications.list({ flagged: false, genuine: true, since: new Date('2026-01-31T12:00:00Z') }));
    await collect(verifications.list({ signal: 'tamper_open', tag_id: 'tag_1' }));
    const sent = (query: RequestOptions['query']) => Object.fromEntries(Object.entries(query!).filter(([, v]) => v !== undefined));
    assert.deepEqual(
      calls.map((c) => [c.method, c.path, sent(c.options.query), c.options.idempotent]),
      [
        ['GET', '/verifications', { flagged: 'true', signal: 'counter_gap' }, true],
        ['GET', '/verifications', { flagged: 'false', genuine: 'true', since: '2026-01-31T12:00:00.000Z' }, true],
        ['GET', '/verifications', { signal: 'tamper_open', tag_id: 'tag_1' }, true],
      ],
    );
  });

  test('updateThresholds PATCHes /teams/current with a teams document of the changed thresholds only, resent after a lost answer', async () => {
    const team = { type: 'teams', id: 'team_1', attributes: { signal_thresholds: { counter_gap: 9, country_jump_window: 21_600, replay_burst: 3 } } };
    const { transport, calls } = fakeTransport(() => ({ data: team }));
    const signal = new AbortController().signal;
    assert.deepEqual(await new Teams(transport).updateThresholds({ counter_gap: 9 }, { signal }), team);
    assert.deepEqual(
      calls.map((c) => [c.method, c.path, c.options.body, c.options.idempotent, c.options.call]),
      [['PATCH', '/teams/current', { data: { type: 'teams', attributes: { signal_thresholds: { counter_gap: 9 } } } }, true, { signal }]],
    );
  });
});

describe('Transport over a fake fetch', () => {
  interface Sent {
    url: string;
    method: string;
    headers: Record<string, string>;
    body: string | undefined;
  }

  /** A client whose fetch answers from `answers` in turn and records each request. */
  function client(answers: (() => Response)[], options: { retry?: ConstructorParameters<typeof RetryPolicy>[0] } = {}) {
    const sent: Sent[] = [];
    const transport = new Transport({
      baseUrl: 'https://tp.example/',
      key: 'tp_sandbox_k',
      retry: options.retry,
      fetch: async (input, init) => {
        sent.push({ url: input as string, method: init!.method!, headers: init!.headers as Record<string, string>, body: init!.body as string | undefined });
        return answers[sent.length - 1]!();
      },
    });
    return { transport, sent };
  }

  const refusal = (work: Promise<unknown>) =>
    work.then(
      () => assert.fail('not refused'),
      (e: unknown) => {
        assert.ok(e instanceof TapproofError, String(e));
        return e;
      },
    );

  test('apiBase adds /api/v1 once, whatever the trailing slashes; resourcePath escapes the id', () => {
    assert.deepEqual(['https://h', 'https://h/', 'https://h/api/v1', 'https://h/api/v1///', 'https://h/prefix'].map(apiBase), [
      'https://h/api/v1',
      'https://h/api/v1',
      'https://h/api/v1',
      'https://h/api/v1',
      'https://h/prefix/api/v1',
    ]);
    assert.equal(resourcePath('tags', 'a/b c'), '/tags/a%2Fb%20c');
  });

  test('options are checked at construction', () => {
    assert.throws(() => new Transport({ baseUrl: '', key: 'k' }), { name: 'TypeError', message: 'baseUrl is required' });
    assert.throws(() => new Transport({ baseUrl: 'https://h', key: '' }), { name: 'TypeError', message: 'key is required' });
    for (const timeout of [0, -1, NaN])
      assert.throws(() => new Transport({ baseUrl: 'https://h', key: 'k', timeout }), {
        name: 'TypeError',
        message: 'timeout must be a positive number of milliseconds',
      });
  });

  test('a GET: JSON:API accept, the key as bearer, no body; query arrays repeat and undefined is left out', async () => {
    const { transport, sent } = client([() => new Response('{"data":[]}', { status: 200 })]);
    const result = await transport.request('GET', '/tags', { query: { q: 'a b', order_by: ['url', 'comment'], page: 2, cursor: undefined }, idempotent: true });
    assert.deepEqual(result, { data: [] });
    assert.deepEqual(sent, [
      {
        url: 'https://tp.example/api/v1/tags?q=a+b&order_by=url&order_by=comment&page=2',
        method: 'GET',
        headers: { accept: 'application/vnd.api+json', authorization: 'Bearer tp_sandbox_k' },
        body: undefined,
      },
    ]);
  });

  test('a body is sent as JSON:API; a 204 answers null', async () => {
    const { transport, sent } = client([() => new Response(null, { status: 204 })]);
    assert.equal(await transport.request('DELETE', '/webhooks/whk_1', { body: { a: 1 }, idempotent: true }), null);
    assert.equal(sent[0]!.headers['content-type'], 'application/vnd.api+json');
    assert.equal(sent[0]!.body, '{"a":1}');
  });

  test('an error answer becomes a TapproofError from its JSON:API errors', async () => {
    const body = JSON.stringify({ errors: [{ status: '404', title: 'Not Found', detail: 'no tag tag_x' }] });
    const { transport } = client([() => new Response(body, { status: 404 })]);
    const error = await refusal(transport.request('GET', '/tags/tag_x', { idempotent: true }));
    assert.deepEqual([error.status, error.code, error.message], [404, 'not_found', 'Not Found: no tag tag_x']);
  });

  test('the extension API’s {error} body, plain text (first 200 characters) and an empty body are read too', async () => {
    const long = 'x'.repeat(300);
    const { transport } = client([
      () => new Response('{"error":"Verification not found"}', { status: 404 }),
      () => new Response(long, { status: 400 }),
      () => new Response('', { status: 500 }),
    ]);
    const ext = await refusal(transport.request('GET', '/a', { idempotent: false }));
    assert.deepEqual([ext.code, ext.title, ext.errors], ['not_found', 'Verification not found', [{ status: '404', title: 'Verification not found' }]]);
    const text = await refusal(transport.request('GET', '/b', { idempotent: false }));
    assert.equal(text.title, 'x'.repeat(200));
    const empty = await refusal(transport.request('GET', '/c', { idempotent: false }));
    assert.deepEqual([empty.code, empty.title], ['internal', 'HTTP 500']);
  });

  test('no answer to a POST is thrown at once as network_error with the cause: a resent create would create twice', async () => {
    const cause = new TypeError('fetch failed');
    const { transport, sent } = client([
      () => {
        throw cause;
      },
    ]);
    const error = await refusal(transport.request('POST', '/tags', { body: {}, idempotent: false }));
    assert.deepEqual([error.status, error.code, error.cause, sent.length], [0, 'network_error', cause, 1]);
  });

  test('a 503 to a POST is not retried', async () => {
    const { transport, sent } = client([() => new Response('', { status: 503 })]);
    const error = await refusal(transport.request('POST', '/verifications', { body: {}, idempotent: false }));
    assert.deepEqual([error.code, sent.length], ['unavailable', 1]);
  });

  test('a 429 whose wait would pass rateLimitWaitMs, or with no retries left, is thrown at once as rate_limited', async () => {
    for (const retry of [{ rateLimitWaitMs: 0 }, { maxRetries: 0 }]) {
      const { transport, sent } = client([() => new Response('Too Many Requests', { status: 429, headers: { 'retry-after': '0' } })], { retry });
      const error = await refusal(transport.request('GET', '/tags', { idempotent: true }));
      assert.deepEqual(
        [error.status, error.code, error.message, sent.length],
        [429, 'rate_limited', 'Too Many Requests: still limited after 0 retries over 0 s of waiting', 1],
        JSON.stringify(retry),
      );
    }
  });
});
