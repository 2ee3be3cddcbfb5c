// Reading the writer routes' request documents: shape problems are 400 (like the tag routes).
import { DomainError } from '../errors.js';
import { isObject, type Json } from '../json.js';

/** A short R-APDU: data up to 256 bytes plus SW1 SW2. */
const RAPDU = /^(?:[0-9A-Fa-f]{2}){2,258}$/;
const MAX_RESPONSES = 64;

function attributes(body: unknown, id?: string): Json {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'writes' || !isObject(body.data.attributes)) throw new DomainError('MalformedBody');
  if (id !== undefined && 'id' in body.data && body.data.id !== id) throw new DomainError('IdMismatch');
  return body.data.attributes;
}

/** POST /writer/writes: the tag to write. */
export function readStartDocument(body: unknown): string {
  const a = attributes(body);
  if (!('tag_id' in a)) throw new DomainError('MissingAttribute');
  if (typeof a.tag_id !== 'string') throw new DomainError('MalformedBody');
  return a.tag_id;
}

/** POST /writer/writes/:id/responses */
export function readResponsesDocument(body: unknown, id: string): { responses: Buffer[]; removed: boolean; abort: boolean; roundTrip: number | null } {
  const a = attributes(body, id);
  if (!('responses' in a)) throw new DomainError('MissingAttribute');
  const { responses, removed = false, abort = false, round_trip: roundTrip = null } = a;
  if (roundTrip !== null && !(Number.isInteger(roundTrip) && (roundTrip as number) >= 0)) throw new DomainError('MalformedBody');
  if (!Array.isArray(responses) || responses.length > MAX_RESPONSES || !responses.every((r) => typeof r === 'string' && RAPDU.test(r))) throw new DomainError('MalformedBody');
  if (typeof removed !== 'boolean' || typeof abort !== 'boolean') throw new DomainError('MalformedBody');
  return { responses: responses.map((r) => Buffer.from(r as string, 'hex')), removed, abort, roundTrip: roundTrip as number | null };
}
