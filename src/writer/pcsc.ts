// A PC/SC reader as a CardLink, through the optional `pcsclite` binding (a real NFC reader, or
// pcscd's vsmartcard virtual reader in tests). Loaded only when `--reader pcsc` is asked for.
import { createRequire } from 'node:module';
import type { CardLink } from './relay.js';

export class PcscUnavailableError extends Error {}

const require = createRequire(import.meta.url);

function loadPcsc(): any {
  try {
    return require('pcsclite');
  } catch (error) {
    throw new PcscUnavailableError(
      `--reader pcsc needs the optional pcsclite binding, which is not installed (${(error as Error).message.split('\n')[0]}); install libpcsclite-dev and run npm install pcsclite`,
    );
  }
}

export interface PcscCard extends CardLink {
  readerName: string;
  close(): Promise<void>;
}

/**
 * Closes a pcsclite context and every reader it saw. Closing cancels pcsclite's pending status calls
 * (reported as errors, silenced here); a reader left open keeps its status thread, and the process, alive.
 */
export function closePcsc(pcsc: any): void {
  pcsc.removeAllListeners('error');
  pcsc.on('error', () => {});
  for (const r of Object.values(pcsc.readers) as any[]) {
    r.removeAllListeners('error');
    r.on('error', () => {});
    r.close();
  }
  pcsc.close();
}

/** Waits (up to `waitMs`) for a card in the reader named `name` (or any reader) and connects to it exclusively. */
export async function connectPcsc(options: { name?: string; waitMs?: number } = {}): Promise<PcscCard> {
  const pcsc = loadPcsc()();
  let timer: NodeJS.Timeout | undefined;
  const closeAll = () => closePcsc(pcsc);
  try {
    const reader: any = await new Promise((resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no card appeared in ${options.name ?? 'any PC/SC reader'} within ${(options.waitMs ?? 30_000) / 1000} s`)),
        options.waitMs ?? 30_000,
      );
      pcsc.on('error', reject);
      pcsc.on('reader', (r: any) => {
        if (options.name !== undefined && r.name !== options.name) return;
        r.on('error', reject);
        r.on('status', (status: { state: number }) => {
          if ((status.state & r.SCARD_STATE_PRESENT) !== 0 && !r.connected) resolve(r);
        });
      });
    });
    clearTimeout(timer);
    const protocol: number = await new Promise((resolve, reject) =>
      reader.connect({ share_mode: reader.SCARD_SHARE_EXCLUSIVE }, (e: Error | null, p: number) => (e ? reject(e) : resolve(p))),
    );
    return {
      readerName: reader.name,
      transmit: (apdu) => new Promise((resolve, reject) => reader.transmit(apdu, 1024, protocol, (e: Error | null, r: Buffer) => (e ? reject(e) : resolve(r)))),
      close: async () => {
        await new Promise<void>((resolve) => reader.disconnect(reader.SCARD_LEAVE_CARD, () => resolve()));
        closeAll();
      },
    };
  } catch (error) {
    clearTimeout(timer);
    closeAll();
    throw error;
  }
}
