import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { authFinish, authPart1Apdu, authPart2, Ev2Session, Ntag424Card, selectNdefApplicationApdu, splitResponse } from '../../src/chips/index.js';

const ZERO = Buffer.alloc(16);
const INS = [0x60, 0x71, 0x77, 0xaf, 0x51, 0x3c, 0xf5, 0x5f, 0xc4, 0x64, 0xad, 0x8d, 0x5c, 0xf7, 0xa4, 0xb0, 0xd6, 0x00, 0xff];

function authenticated(): { card: Ntag424Card; s: Ev2Session } {
  const card = new Ntag424Card({ protocol: 'ntag_424_dna_tag_tamper' });
  card.transmit(selectNdefApplicationApdu());
  const ch = authPart2(ZERO, splitResponse(Buffer.from(card.transmit(authPart1Apdu(0, true))))!.data);
  const d = authFinish(ZERO, ch, splitResponse(Buffer.from(card.transmit(ch.capdu)))!.data, true)!;
  return { card, s: new Ev2Session(d, d.ti!, 0) };
}

describe('the card answers any frame with a status word and never throws', () => {
  test('random APDUs (well-formed headers, random bodies) in blank, selected and authenticated states', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0x00, 0x90, 0x80),
        fc.constantFrom(...INS),
        fc.uint8Array({ maxLength: 4 }),
        fc.uint8Array({ maxLength: 260 }),
        fc.boolean(),
        fc.constantFrom('blank', 'selected', 'session', 'session-mac'),
        (cla, ins, p, body, withLe, state) => {
          const { card, s } = authenticated();
          if (state === 'blank') card.powerOn();
          if (state === 'selected') card.transmit(selectNdefApplicationApdu());
          const header = Buffer.from([cla, ins, p[0] ?? 0, p[1] ?? 0]);
          const apdu =
            state === 'session-mac' && cla === 0x90
              ? s.commandApdu(ins, Buffer.from(body.subarray(0, 1)), Buffer.from(body.subarray(1, 200)), p.length % 2 ? 'full' : 'mac')
              : body.length === 0
                ? header
                : Buffer.concat([header, Buffer.from([body.length & 0xff]), body, withLe ? Buffer.from([0]) : Buffer.alloc(0)]);
          const r = card.transmit(apdu);
          assert.ok(r.length >= 2);
          const sw = Buffer.from(r).readUInt16BE(r.length - 2);
          assert.notEqual(sw, 0x6f00, 'an unforeseen input reached an internal error');
          assert.ok(sw >> 8 === 0x91 || sw >> 8 === 0x90 || (sw >= 0x6000 && sw < 0x7000), sw.toString(16));
        },
      ),
      { numRuns: 400 },
    );
  });
});
