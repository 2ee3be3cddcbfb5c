// Assertions shared by the tests of the list routes' query parameters.
import assert from 'node:assert/strict';
import type { ApiResponse } from '../kit/harness.js';

/** A 400 with one error naming the query parameter (`source.parameter`). */
export function assertBadParameter(response: ApiResponse, parameter: string): void {
  assert.equal(response.status, 400, response.text);
  assert.equal(response.headers.get('content-type'), 'application/vnd.api+json');
  assert.equal(response.body.errors.length, 1, response.text);
  const [error] = response.body.errors;
  assert.deepEqual(Object.keys(error).sort(), ['detail', 'source', 'status', 'title']);
  assert.equal(error.status, '400');
  assert.equal(error.title, 'Invalid query parameter');
  assert.deepEqual(error.source, { parameter });
  assert.ok(error.detail.includes(parameter), error.detail);
}

/** Every page of a keyset walk from `path`, following links.next. */
export async function walk(get: (path: string) => Promise<ApiResponse>, path: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let pages = 0;
  for (let next: string | null = path; next !== null;) {
    const response = await get(next);
    assert.equal(response.status, 200, response.text);
    pages++;
    ids.push(...response.body.data.map((r: { id: string }) => r.id));
    next = response.body.links.next;
    if (pages > 1000) throw new Error('the walk does not end');
  }
  return { ids, pages };
}
