// One-shot faults the emulated card can be armed with, so writer tests see a card leave the field, tear a write or answer an error.

/** Thrown by transmit() when the card has left the field (fault injection): the reader's error. */
export class CardRemovedError extends Error {
  constructor() {
    super('the card was removed from the reader');
  }
}

/**
 * One-shot faults for writer tests. `ins` selects the command (any when absent), `skip` lets that
 * many matching commands through first.
 *  - remove: the card leaves before the command reaches it (nothing executed).
 *  - drop: the command executes, then the card leaves before answering.
 *  - status: the card answers `sw` without executing.
 *  - tear: a write (WriteData / ISOUpdateBinary) stores only its first half, then the card leaves.
 */
export interface CardFault {
  kind: 'remove' | 'drop' | 'status' | 'tear';
  ins?: number;
  skip?: number;
  sw?: number;
}

/** Takes the armed fault that fires on this command, if any, counting down `skip` on the first match. */
export function takeFault(faults: CardFault[], ins: number): CardFault | undefined {
  const i = faults.findIndex((f) => f.ins === undefined || f.ins === ins);
  if (i < 0) return undefined;
  const f = faults[i]!;
  if ((f.skip ?? 0) > 0) {
    f.skip = f.skip! - 1;
    return undefined;
  }
  faults.splice(i, 1);
  return f;
}
