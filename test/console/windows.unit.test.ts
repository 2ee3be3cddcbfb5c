// The console's Overview window read from the URL (packages/console/src/stats-window.ts) and the tag comments
// its lists of scans show, read once a minute per tag (packages/console/src/tag-comments.ts): no browser needed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Api } from '../../packages/console/src/api.js';
import { statsQuery, windowOf, windowTitle } from '../../packages/console/src/stats-window.js';
import { COMMENT_TTL_MS, tagComments } from '../../packages/console/src/tag-comments.js';

/** 2026-01-31T23:59:59Z: the last second of a UTC day. */
const NOW = Date.UTC(2026, 0, 31, 23, 59, 59);
const query = (text: string) => new URLSearchParams(text);

describe('the Overview window', () => {
  test('presets count UTC days up to today, both ends included; without one (or an unknown one) 30 days', () => {
    assert.deepEqual(windowOf(query(''), NOW), { kind: 'preset', days: 30, since: '2026-01-02', until: '2026-01-31' });
    assert.deepEqual(windowOf(query('days=1'), NOW), { kind: 'preset', days: 1, since: '2026-01-31', until: '2026-01-31' });
    assert.deepEqual(windowOf(query('days=7'), NOW), { kind: 'preset', days: 7, since: '2026-01-25', until: '2026-01-31' });
    assert.deepEqual(windowOf(query('days=90'), NOW), { kind: 'preset', days: 90, since: '2025-11-03', until: '2026-01-31' });
    for (const days of ['5', '365', '', 'seven', '07']) assert.deepEqual(windowOf(query(`days=${days}`), NOW), windowOf(query(''), NOW), days);
    // A second later it is another day.
    assert.equal(windowOf(query('days=1'), NOW + 1000).until, '2026-02-01');
  });

  test('dates in the URL are the window as given, preset or not; an empty end is left to the API', () => {
    assert.deepEqual(windowOf(query('since=2026-01-01&until=2026-01-10&days=7'), NOW), { kind: 'custom', since: '2026-01-01', until: '2026-01-10' });
    assert.deepEqual(statsQuery(windowOf(query('since=2026-01-01'), NOW)), { since: '2026-01-01', until: undefined });
    assert.deepEqual(statsQuery(windowOf(query('until=2026-01-10'), NOW)), { since: undefined, until: '2026-01-10' });
    assert.deepEqual(statsQuery(windowOf(query('days=7'), NOW)), { since: '2026-01-25', until: '2026-01-31' });
    // Refused by the API, not here: it names what is wrong.
    assert.deepEqual(windowOf(query('since=2026-02-30&until=2026-01-01'), NOW), { kind: 'custom', since: '2026-02-30', until: '2026-01-01' });
  });

  test('the heading names the preset and the days the answer covers', () => {
    const answered = { since: '2026-01-25', until: '2026-01-31' };
    assert.equal(windowTitle(windowOf(query('days=7'), NOW), answered), 'Last 7 days (2026-01-25 to 2026-01-31)');
    assert.equal(windowTitle(windowOf(query('days=1'), NOW), { since: '2026-01-31', until: '2026-01-31' }), 'Today (2026-01-31)');
    assert.equal(windowTitle(windowOf(query('since=2026-01-25'), NOW), answered), '2026-01-25 to 2026-01-31');
    assert.equal(windowTitle(windowOf(query('since=2026-01-10&until=2026-01-10'), NOW), { since: '2026-01-10', until: '2026-01-10' }), '2026-01-10');
  });
});

/** A client whose GET /tags/:id answers from `tags` (absent: 404; `fail`: 500), counting the reads of each tag. */
function fakeApi(tags: Record<string, string | null>, fail = new Set<string>()) {
  const reads: string[] = [];
  const api = {
    async GET(_path: string, options: { params: { path: { id: string } } }) {
      const { id } = options.params.path;
      reads.push(id);
      if (fail.has(id)) return { error: { errors: [] }, response: new Response(null, { status: 500 }) };
      if (!(id in tags)) return { error: { errors: [] }, response: new Response(null, { status: 404 }) };
      return { data: { data: { id, type: 'tags', attributes: { comment: tags[id] } } }, response: new Response(null, { status: 200 }) };
    },
  };
  return { api: api as unknown as Api, reads };
}

describe('tag comments', () => {
  test('each tag of a list is read once, however often it appears and however many lists ask at once', async () => {
    const { api, reads } = fakeApi({ tag_a: 'Bottle A', tag_b: null });
    const [first, second] = await Promise.all([tagComments(api, ['tag_a', 'tag_b', 'tag_a'], NOW), tagComments(api, ['tag_a'], NOW)]);
    assert.deepEqual(first, { tag_a: 'Bottle A', tag_b: null });
    assert.deepEqual(second, { tag_a: 'Bottle A' });
    assert.deepEqual(reads.sort(), ['tag_a', 'tag_b']);
    assert.deepEqual(await tagComments(api, [], NOW), {});
  });

  test('a comment is read again after a minute; a deleted tag has none; a failed read is not remembered', async () => {
    const fail = new Set(['tag_c']);
    const { api, reads } = fakeApi({ tag_a: 'Bottle A', tag_c: 'Crate C' }, fail);
    assert.deepEqual(await tagComments(api, ['tag_a', 'tag_gone', 'tag_c'], NOW), { tag_a: 'Bottle A', tag_gone: null, tag_c: null });
    fail.clear();
    assert.deepEqual(await tagComments(api, ['tag_a', 'tag_gone', 'tag_c'], NOW + COMMENT_TTL_MS), { tag_a: 'Bottle A', tag_gone: null, tag_c: 'Crate C' });
    assert.deepEqual(reads, ['tag_a', 'tag_gone', 'tag_c', 'tag_c']);
    await tagComments(api, ['tag_a', 'tag_gone'], NOW + COMMENT_TTL_MS + 1);
    assert.deepEqual(reads.slice(4), ['tag_a', 'tag_gone']);
  });

  test("another key's client reads for itself", async () => {
    const one = fakeApi({ tag_a: 'Bottle A' });
    const other = fakeApi({ tag_a: 'Theirs' });
    assert.deepEqual(await tagComments(one.api, ['tag_a'], NOW), { tag_a: 'Bottle A' });
    assert.deepEqual(await tagComments(other.api, ['tag_a'], NOW), { tag_a: 'Theirs' });
    assert.deepEqual([one.reads, other.reads], [['tag_a'], ['tag_a']]);
  });
});
