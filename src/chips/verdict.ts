// The outcome of verifying one SUN message, shared by the 424 and 223 verifiers.
import type { Tamper } from './tamper.js';

export type SunVerdict =
  | { ok: true; uid: string /* 14 hex upper */; counter: number; tamper: Tamper; fileData: Uint8Array | null }
  | { ok: false; reason: 'bad_picc_data' | 'bad_cmac'; uid?: string; counter?: number };
