// The value rules of the POST /verifications attributes. One table serves
// validation (422 naming the attribute) and the OpenAPI schema of the request
// document (src/verifications/schemas.ts composes it from ATTRIBUTES).
import { isIP } from 'node:net';
import { Type } from '@sinclair/typebox';
import type { FieldRule } from '../http/field-rules.js';
import { textProblem } from '../http/text-rules.js';
import { LIMITS } from '../tags/index.js';

/** A chip's NDEF file is 256 bytes; the limit only keeps junk out of the lookup. */
export const MAX_SCANNED_URL = LIMITS.urlBytes + 1024;

export const ATTRIBUTES = {
  url: {
    schema: Type.String({
      minLength: 1,
      description: `The URL exactly as the phone opened it, SDM parameters included; at most ${MAX_SCANNED_URL} bytes of UTF-8`,
    }),
    explain: (v: unknown) => {
      if (typeof v !== 'string' || v.length === 0) return 'url must be a non-empty string';
      if (Buffer.byteLength(v) > MAX_SCANNED_URL) return `url must be at most ${MAX_SCANNED_URL} bytes`;
      // No tag url holds such characters (same rule as on write), and NUL must not reach PostgreSQL.
      return textProblem('url', v);
    },
  },
  client_ip: {
    schema: Type.Union([Type.String({ description: "The scanning phone's IP address (IPv4 or IPv6)" }), Type.Null()]),
    explain: (v: unknown) => (v === null || (typeof v === 'string' && isIP(v) !== 0) ? null : 'client_ip must be an IPv4 or IPv6 address'),
  },
} satisfies Record<string, FieldRule>;
