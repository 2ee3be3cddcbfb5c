// The JSON:API `chips` resource: what an operator may know of the chip bound to a tag. Never a key,
// sealed or not: the SDM keys stay in the row (imported) or are derived on demand (docs/chips.md).
import { isoMicros } from '../time.js';
import type { ChipRow } from './repository.js';

export function renderChip(chip: ChipRow) {
  return {
    type: 'chips',
    id: chip.tag_id,
    attributes: {
      protocol: chip.protocol,
      uid: chip.uid,
      crypto: chip.crypto,
      mirroring: chip.mirroring,
      key_source: chip.key_source,
      key_version: chip.key_version,
      write_generation: chip.write_generation,
      last_counter: chip.last_counter,
      bound_at: isoMicros(chip.created_at),
    },
  };
}
