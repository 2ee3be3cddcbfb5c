import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createServer, type Socket } from 'node:net';
import {
  authFinish,
  changeFileSettingsApdu,
  changeKeyApdu,
  changeKeyResponseMode,
  sdmFileConfig,
  sdmTemplate,
  verifySun424,
  writeChunks,
  writeDataApdu,
  authPart1Apdu,
  authPart2,
  Ev2Session,
  getCardUidApdu,
  getVersionApdus,
  Ntag424Card,
  parseGetCardUid,
  parseGetVersion,
  selectNdefApplicationApdu,
  splitResponse,
} from '../../src/chips/index.js';
import { NTAG424_ATR, VpcdLink } from '../../src/chips/card/vpcd.js';
import { closePcsc } from '../../src/writer/pcsc.js';
import { defaultLayout, readSdmPart } from '../../src/chips/url-layout.js';
import { upper } from './vectors.js';

/** Frames as vpcd sends them: 2-byte big-endian length, payload. */
function frame(payload: Buffer): Buffer {
  const h = Buffer.alloc(2);
  h.writeUInt16BE(payload.length, 0);
  return Buffer.concat([h, payload]);
}

/** Reads length-prefixed frames from the card side of the socket. */
function frames(socket: Socket): () => Promise<Buffer> {
  let buf = Buffer.alloc(0);
  const waiting: ((b: Buffer) => void)[] = [];
  const ready: Buffer[] = [];
  socket.on('data', (c) => {
    buf = Buffer.concat([buf, c]);
    while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
      const f = buf.subarray(2, 2 + buf.readUInt16BE(0));
      buf = buf.subarray(2 + f.length);
      const w = waiting.shift();
      if (w) w(Buffer.from(f));
      else ready.push(Buffer.from(f));
    }
  });
  return () => (ready.length > 0 ? Promise.resolve(ready.shift()!) : new Promise((r) => waiting.push(r)));
}

describe('vpcd framing (the reader side played by a local TCP server)', () => {
  test('ATR request, power on, an APDU split across TCP segments, and removal closing the link', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const accepted = new Promise<Socket>((r) => server.once('connection', r));
    const card = new Ntag424Card();
    let closeReason: string | undefined;
    const closed = new Promise<void>((r) => {
      void VpcdLink.connect(card, {
        port,
        onClose: (reason) => {
          closeReason = reason;
          r();
        },
      });
    });
    const reader = await accepted;
    const next = frames(reader);
    reader.write(frame(Buffer.from([4])));
    assert.equal(upper(await next()), upper(NTAG424_ATR));
    reader.write(frame(Buffer.from([1])));
    const select = frame(selectNdefApplicationApdu());
    reader.write(select.subarray(0, 3));
    setImmediate(() => reader.write(Buffer.concat([select.subarray(3), frame(getVersionApdus()[0]!)])));
    assert.equal(upper(await next()), '9000');
    assert.equal(upper(await next()).slice(-4), '91AF');
    card.injectFault({ kind: 'remove' });
    reader.write(frame(getVersionApdus()[1]!));
    await closed;
    assert.equal(closeReason, 'removed');
    reader.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  test('nothing listening: a one-line error that names the address', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((r) => server.close(() => r()));
    await assert.rejects(VpcdLink.connect(new Ntag424Card(), { port }), new RegExp(`127\\.0\\.0\\.1:${port} \\(is pcscd running`));
  });
});

// ---------------------------------------------------------------------------------------------
// Through the real pcscd: the software card in a vpcd slot, a PC/SC client on the other side.

const require = createRequire(import.meta.url);
// The second vpcd slot, so this test does not take the first one from other users of pcscd.
const PORT = Number(process.env.TAPPROOF_TEST_VPCD_PORT ?? 35964);
const READER = `Virtual PCD 00 0${PORT - 35963}`;

function loadPcsc(): any {
  try {
    return require('pcsclite');
  } catch {
    return null;
  }
}

const pcsclite = loadPcsc();

describe('through the real pcscd (vsmartcard-vpcd)', () => {
  // A probe connection would itself look like a card insertion to vpcd, so the test connects for
  // real and skips when nothing listens.
  const skip = pcsclite === null ? 'the optional pcsclite binding is not installed' : false;

  test(
    'a PC/SC application sees the card and personalizes it: ATR, SELECT, GetVersion, AuthenticateEV2First, GetCardUID, 255-byte WriteData, ChangeFileSettings, ChangeKey; the tap verifies',
    { skip },
    async (t) => {
      const card = new Ntag424Card();
      let link: VpcdLink;
      try {
        link = await VpcdLink.connect(card, { port: PORT });
      } catch (e) {
        t.skip(`pcscd with vsmartcard-vpcd is not reachable: ${(e as Error).message}`);
        return;
      }
      const pcsc = pcsclite();
      let timer: NodeJS.Timeout | undefined;
      try {
        // Bounded so a taken slot ends in a failure that names it, and the finally below still closes pcsclite.
        const gaveUp = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no card appeared in ${READER} within 30 s (is the vpcd slot on port ${PORT} used by another process?)`)),
            30_000,
          );
        });
        const reader: any = await Promise.race([
          gaveUp,
          new Promise((resolve, reject) => {
            pcsc.on('error', reject);
            pcsc.on('reader', (r: any) => {
              if (r.name !== READER) return;
              r.on('error', reject);
              r.on('status', (status: { state: number; atr?: Buffer }) => {
                if ((status.state & r.SCARD_STATE_PRESENT) !== 0 && !r.connected) resolve(Object.assign(r, { atr: status.atr }));
              });
            });
          }),
        ]);
        assert.equal(upper(reader.atr), upper(NTAG424_ATR));
        const protocol: number = await new Promise((resolve, reject) =>
          reader.connect({ share_mode: reader.SCARD_SHARE_EXCLUSIVE }, (e: Error | null, p: number) => (e ? reject(e) : resolve(p))),
        );
        const tx = (apdu: Buffer): Promise<Buffer> =>
          new Promise((resolve, reject) => reader.transmit(apdu, 1024, protocol, (e: Error | null, r: Buffer) => (e ? reject(e) : resolve(r))));
        assert.equal(upper(await tx(selectNdefApplicationApdu())), '9000');
        const version = parseGetVersion([await tx(getVersionApdus()[0]!), await tx(getVersionApdus()[1]!), await tx(getVersionApdus()[2]!)])!;
        assert.deepEqual(version.uid, card.uid);
        const key = Buffer.alloc(16);
        const ch = authPart2(key, splitResponse(await tx(authPart1Apdu(0, true)))!.data);
        const done = authFinish(key, ch, splitResponse(await tx(ch.capdu))!.data, true)!;
        assert.ok(done);
        const s = new Ev2Session(done, done.ti!, 0);
        assert.deepEqual(parseGetCardUid(await tx(getCardUidApdu(s)), s), card.uid);
        assert.equal(link.apdus, 7);
        // The longest APDUs of a write pass unchanged: a 255-byte WriteData, ChangeFileSettings, ChangeKey.
        const url = 'https://pcsc.example/' + 'p'.repeat(150);
        const t = sdmTemplate('ntag_424_dna', url);
        const chunks = writeChunks(Buffer.concat([t.file, Buffer.alloc(256 - t.file.length)]), 'plain');
        assert.equal(chunks[0]!.data.length, 248);
        for (const c of chunks) assert.ok(s.checkResponse(await tx(writeDataApdu(s, 2, c.offset, c.data, 'plain')), 'plain'));
        assert.ok(s.checkResponse(await tx(changeFileSettingsApdu(s, 2, sdmFileConfig('ntag_424_dna', t))), 'mac'));
        for (const keyNo of [1, 2, 3, 4, 0])
          assert.ok(s.checkResponse(await tx(changeKeyApdu(s, keyNo, 0, key, Buffer.alloc(16, keyNo + 1), 1)), changeKeyResponseMode(keyNo, 0)));
        await new Promise<void>((resolve) => reader.disconnect(reader.SCARD_LEAVE_CARD, () => resolve()));
        const tapped = card.tap();
        const sdm = readSdmPart(defaultLayout('ntag_424_dna'), tapped, url.length + 1)!;
        const verdict = verifySun424({
          crypto: 'aes',
          sdmMetaReadKey: Buffer.alloc(16, 2),
          sdmFileReadKey: Buffer.alloc(16, 3),
          piccData: sdm.values.picc_data!,
          cmac: sdm.values.cmac!,
          macInput: '',
        });
        assert.deepEqual(verdict.ok && [verdict.uid, verdict.counter], [upper(card.uid), 1]);
      } finally {
        clearTimeout(timer);
        await link.close();
        closePcsc(pcsc);
      }
    },
  );
});
