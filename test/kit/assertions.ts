// Assertions on the platform API's answers, for every suite: the exact JSON:API
// media type, and the exact shape of its error documents (docs/api.md, errors).
import assert from 'node:assert/strict';
import { JSON_API, type ApiResponse } from './harness.js';

/** A time as the API renders it: ISO 8601 with microseconds, UTC. */
export const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A JSON:API response with the exact media type. */
export function assertJsonApi(response: ApiResponse): void {
  assert.equal(response.headers.get('content-type'), JSON_API);
}

/** A non-422 error: exactly one error with only `status` and `title` (and `detail` where the error explains itself). */
export function assertError(response: ApiResponse, status: number, options: { detail?: boolean } = {}): void {
  assert.equal(response.status, status, response.text);
  assertJsonApi(response);
  assert.deepEqual(Object.keys(response.body).sort(), ['errors']);
  assert.equal(response.body.errors.length, 1, response.text);
  const [error] = response.body.errors;
  assert.deepEqual(Object.keys(error).sort(), options.detail ? ['detail', 'status', 'title'] : ['status', 'title']);
  if (options.detail) assert.ok(typeof error.detail === 'string' && error.detail.length > 0, response.text);
  assert.equal(error.status, String(status));
  assert.equal(typeof error.title, 'string');
  assert.ok(error.title.length > 0);
}

/** A 422 with exactly one error per pointer, each with status, title, detail and source.pointer. */
export function assertValidation(response: ApiResponse, pointers: string[]): void {
  assert.equal(response.status, 422, response.text);
  assertJsonApi(response);
  const errors = response.body.errors as any[];
  for (const error of errors) {
    assert.deepEqual(Object.keys(error).sort(), ['detail', 'source', 'status', 'title']);
    assert.equal(error.status, '422');
    assert.equal(typeof error.title, 'string');
    assert.equal(typeof error.detail, 'string');
    assert.ok(error.detail.length > 0);
    assert.deepEqual(Object.keys(error.source), ['pointer']);
  }
  assert.deepEqual(errors.map((e) => e.source.pointer).sort(), [...pointers].sort(), response.text);
}
