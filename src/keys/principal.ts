import type { Mode } from '../db/schema.js';

/** Who is calling: the key's team and its world (mode). */
export interface Principal {
  keyId: string;
  teamId: string;
  mode: Mode;
}
