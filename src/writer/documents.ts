// Reading the writer routes' request documents: shape problems are 400 (like the tag routes), and
// so is any attribute the field rules refuse (the writer is a program; its bodies name no field).
import { Type } from '@sinclair/typebox';
import { DomainError } from '../errors.js';
import { fieldProblems, type FieldRule } from '../http/field-rules.js';
import { isObject, type Json } from '../json.js';
import type { WriterSessionsTable } from '../db/schema.js';

type Operation = WriterSessionsTable['operation'];

/** A short R-APDU: data up to 256 bytes plus SW1 SW2. */
const RAPDU = '^(?:[0-9A-Fa-f]{2}){2,258}$';
const RAPDU_TEXT = new RegExp(RAPDU);
const MAX_RESPONSES = 64;
const boolean = (name: string) => (v: unknown) => (typeof v === 'boolean' ? null : `${name} must be true or false`);

/** The attributes of both writer requests: published in OpenAPI (src/writer/schemas.ts) and enforced. */
export const ATTRIBUTES = {
  tag_id: {
    schema: Type.String({ description: 'tag_… of a created tag (of a configured one to rekey)' }),
    explain: (v: unknown) => (typeof v === 'string' ? null : 'tag_id must be a string'),
  },
  operation: {
    schema: Type.Union([Type.Literal('personalize'), Type.Literal('rekey')], {
      description: "personalize (the default): write a created tag onto a blank chip; rekey: move a configured tag's chip to new keys (docs/writer.md)",
    }),
    explain: (v: unknown) => (v === 'personalize' || v === 'rekey' ? null : 'operation must be personalize or rekey'),
  },
  responses: {
    schema: Type.Array(Type.String({ pattern: RAPDU }), { maxItems: MAX_RESPONSES, description: 'R-APDUs (hex), one per C-APDU sent' }),
    explain: (v: unknown) =>
      Array.isArray(v) && v.length <= MAX_RESPONSES && v.every((r) => typeof r === 'string' && RAPDU_TEXT.test(r))
        ? null
        : `responses must be at most ${MAX_RESPONSES} R-APDUs in hex`,
  },
  removed: { schema: Type.Boolean({ description: 'the card left the reader: the write fails (chip_removed)' }), explain: boolean('removed') },
  abort: { schema: Type.Boolean({ description: 'the writer gives up: the write fails (aborted)' }), explain: boolean('abort') },
  round_trip: {
    schema: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'the round_trips value of the write these answers are for: a stale or repeated delivery gets 409',
    }),
    explain: (v: unknown) => (v === null || (Number.isInteger(v) && (v as number) >= 0) ? null : 'round_trip must be a whole number from 0'),
  },
} satisfies Record<string, FieldRule>;

function attributes(body: unknown, id?: string): Json {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'writes' || !isObject(body.data.attributes)) throw new DomainError('MalformedBody');
  if (id !== undefined && 'id' in body.data && body.data.id !== id) throw new DomainError('IdMismatch');
  return body.data.attributes;
}

/** 400 unless every attribute of `names` that is present passes its rule. */
function checked(a: Json, names: (keyof typeof ATTRIBUTES)[]): void {
  if (names.some((name) => name in a && fieldProblems(name, ATTRIBUTES[name], a[name], undefined).length > 0)) throw new DomainError('MalformedBody');
}

/** POST /writer/writes: the tag to write, and what to do. */
export function readStartDocument(body: unknown): { tagId: string; operation: Operation } {
  const a = attributes(body);
  if (!('tag_id' in a)) throw new DomainError('MissingAttribute');
  checked(a, ['tag_id', 'operation']);
  return { tagId: a.tag_id as string, operation: (a.operation ?? 'personalize') as Operation };
}

/** POST /writer/writes/:id/responses */
/** The chip's answers to a round trip of a write, as the writer posts them. */
export interface ChipResponses {
  responses: Buffer[];
  /** The chip left the reader. */
  removed: boolean;
  /** The writer gives the write up. */
  abort: boolean;
  /** The round trip these answer; null to answer the current one. */
  roundTrip: number | null;
}

export function readResponsesDocument(body: unknown, id: string): ChipResponses {
  const a = attributes(body, id);
  if (!('responses' in a)) throw new DomainError('MissingAttribute');
  checked(a, ['round_trip', 'responses', 'removed', 'abort']);
  const { responses, removed = false, abort = false, round_trip: roundTrip = null } = a;
  return {
    responses: (responses as string[]).map((r) => Buffer.from(r, 'hex')),
    removed: removed as boolean,
    abort: abort as boolean,
    roundTrip: roundTrip as number | null,
  };
}
