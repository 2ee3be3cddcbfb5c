// The vsmartcard "vpcd" protocol, card side: a software card (Ntag424Card) connects over TCP to the
// virtual reader driver that pcscd loads (Debian's vsmartcard-vpcd, 127.0.0.1:35963 for the first
// slot, 35964 for the second), and every PC/SC application then sees it as a card in "Virtual PCD".
// Wire format (vsmartcard's vpcd.h): each message is a 2-byte big-endian length and a payload. A
// 1-byte payload is a control code from the reader: 0 power off, 1 power on, 2 reset, 4 "send your
// ATR"; anything longer is a C-APDU, answered with the R-APDU in the same framing. The driver sees a
// card present while the connection is open; closing it is taking the card out of the field.
import { connect, type Socket } from 'node:net';
import { CardRemovedError } from './faults.js';

export const VPCD_DEFAULT_HOST = '127.0.0.1';
export const VPCD_DEFAULT_PORT = 35963;

/** The name pcscd gives the reader of a vpcd port: one slot per port from 35963 ("Virtual PCD 00 00", "… 00 01", …). */
export const vpcdReaderName = (port: number = VPCD_DEFAULT_PORT) => `Virtual PCD 00 ${String(port - VPCD_DEFAULT_PORT).padStart(2, '0')}`;

/**
 * ATR a PC/SC reader builds for an ISO 14443-4 type A card without historical bytes (PC/SC part 3
 * 3.1.3.2.3.2), what contactless readers report for an NTAG 424 DNA.
 */
export const NTAG424_ATR = Buffer.from('3B8180018080', 'hex');

const CTRL_OFF = 0;
const CTRL_ON = 1;
const CTRL_RESET = 2;
const CTRL_ATR = 4;

/** What the vpcd link needs from a card. */
export interface VirtualCard {
  transmit(apdu: Uint8Array): Uint8Array;
  powerOn(): void;
}

export interface VpcdOptions {
  host?: string;
  port?: number;
  atr?: Uint8Array;
  /** Called once when the link ends: closed by us, by the reader side, or the card "removed". */
  onClose?: (reason: 'closed' | 'removed' | 'error', error?: Error) => void;
}

/** One card inserted in one vpcd slot. */
export class VpcdLink {
  readonly #socket: Socket;
  readonly #card: VirtualCard;
  readonly #atr: Buffer;
  #buffer: Buffer = Buffer.alloc(0);
  #closed = false;
  #onClose: VpcdOptions['onClose'];
  /** C-APDUs relayed so far (round trips through pcscd). */
  apdus = 0;

  private constructor(socket: Socket, card: VirtualCard, options: VpcdOptions) {
    this.#socket = socket;
    this.#card = card;
    this.#atr = Buffer.from(options.atr ?? NTAG424_ATR);
    this.#onClose = options.onClose;
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.#receive(chunk));
    socket.on('error', (e) => this.#end('error', e));
    socket.on('close', () => this.#end('closed'));
  }

  /** Connects the card to the virtual reader (inserts it); rejects when nothing listens there. */
  static connect(card: VirtualCard, options: VpcdOptions = {}): Promise<VpcdLink> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: options.host ?? VPCD_DEFAULT_HOST, port: options.port ?? VPCD_DEFAULT_PORT });
      const fail = (e: Error) =>
        reject(
          new Error(
            `cannot reach the vpcd virtual reader at ${options.host ?? VPCD_DEFAULT_HOST}:${options.port ?? VPCD_DEFAULT_PORT} (is pcscd running with vsmartcard-vpcd?): ${e.message}`,
          ),
        );
      socket.once('error', fail);
      socket.once('connect', () => {
        socket.off('error', fail);
        resolve(new VpcdLink(socket, card, options));
      });
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Takes the card out of the reader. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    // Taking a card out is abrupt; pcscd notices the closed connection as a removal.
    return new Promise((resolve) => {
      this.#socket.once('close', () => resolve());
      this.#socket.destroy();
    });
  }

  #end(reason: 'closed' | 'removed' | 'error', error?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket.destroy();
    this.#onClose?.(reason, error);
  }

  #receive(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    while (!this.#closed && this.#buffer.length >= 2) {
      const len = this.#buffer.readUInt16BE(0);
      if (this.#buffer.length < 2 + len) return;
      const msg = this.#buffer.subarray(2, 2 + len);
      this.#buffer = this.#buffer.subarray(2 + len);
      this.#handle(Buffer.from(msg));
    }
  }

  #send(payload: Uint8Array): void {
    const head = Buffer.alloc(2);
    head.writeUInt16BE(payload.length, 0);
    this.#socket.write(Buffer.concat([head, payload]));
  }

  #handle(msg: Buffer): void {
    if (msg.length === 1) {
      const code = msg[0]!;
      if (code === CTRL_ATR) this.#send(this.#atr);
      else if (code === CTRL_ON || code === CTRL_RESET) this.#card.powerOn();
      else if (code !== CTRL_OFF) this.#end('error', new Error(`unknown vpcd control code ${code}`));
      return;
    }
    if (msg.length === 0) return;
    let response: Uint8Array;
    try {
      this.apdus += 1;
      response = this.#card.transmit(msg);
    } catch (e) {
      // The card left the field: drop the connection so pcscd reports it removed.
      if (e instanceof CardRemovedError) return this.#end('removed', e);
      return this.#end('error', e as Error);
    }
    this.#send(response);
  }
}
