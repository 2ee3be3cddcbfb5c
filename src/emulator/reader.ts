// `tapproof emulator reader`: an emulated chip held in pcscd's virtual reader (vsmartcard-vpcd),
// so that the real writer (`tapproof writer --reader pcsc`, or any PC/SC program) reaches it as it
// would a chip on a desk reader, without hardware (docs/writer.md). The card is the one the
// emulator keeps for the tag in the data dir; every command it answers is saved at once, as a real
// chip keeps what it was told, so a stop at any moment leaves the card as the writer left it.
import { Ntag424Card, VpcdLink, type VirtualCard } from '../chips/index.js';
import { loadCard, saveCard } from '../writer/index.js';

export interface ReaderOptions {
  dataDir: string;
  tagId: string;
  /** A factory-blank card of this protocol when the tag has none yet. */
  protocol: 'ntag_424_dna' | 'ntag_424_dna_tag_tamper';
  /** The blank card switched to LRP (a chip is switched before it is written). */
  lrp: boolean;
  host?: string;
  port?: number;
}

export interface HeldCard {
  /** The card was made now (factory-blank) rather than loaded. */
  blank: boolean;
  /** Resolves when the card leaves the reader: `close()`, or pcscd dropped the link. */
  removed: Promise<'closed' | 'removed' | 'error'>;
  close(): Promise<void>;
}

/** Inserts the tag's emulated card into the vpcd slot at `host:port`; rejects when pcscd is not there. */
export async function holdInReader(options: ReaderOptions): Promise<HeldCard> {
  const loaded = loadCard(options.dataDir, options.tagId);
  const card = loaded ?? new Ntag424Card({ protocol: options.protocol, lrp: options.lrp });
  saveCard(options.dataDir, options.tagId, card);
  const saving: VirtualCard = {
    transmit(apdu) {
      const response = card.transmit(apdu);
      saveCard(options.dataDir, options.tagId, card);
      return response;
    },
    powerOn: () => card.powerOn(),
  };
  let ended: (reason: 'closed' | 'removed' | 'error') => void = () => {};
  const removed = new Promise<'closed' | 'removed' | 'error'>((resolve) => (ended = resolve));
  const link = await VpcdLink.connect(saving, { host: options.host, port: options.port, onClose: (reason) => ended(reason) });
  return { blank: loaded === null, removed, close: () => link.close() };
}
