// Sealing of secrets kept at rest (webhook signing secrets, imported chip keys):
// AES-256-GCM under a key derived per purpose from a master key (the mode's
// master, src/master-keys/masters.ts). Every sealed value names the key it was
// sealed under, so a deployment whose master changed fails loudly, not with
// garbage.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Key material is missing or is not the deployment's: an operator must act (API: 503, CLI: one line).
 * `detail`, when set, is what an API client may read of why (never key material nor the log's reason).
 */
export class KeyMaterialError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

export class SealError extends KeyMaterialError {}

/** Seals and opens values for one purpose (the purpose is both the HKDF info and the AAD). */
export interface Sealer {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

function purposeKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `tapproof/${purpose}`, 32));
}

/** The key id a sealer for `purpose` under `master` writes into every sealed value. */
export function sealerKeyId(master: Buffer, purpose: string): string {
  return createHash('sha256').update(purposeKey(master, purpose)).digest('base64url').slice(0, 8);
}

/** The key id a sealed value names (no key needed). */
export function sealedKeyId(sealed: string): string | undefined {
  return sealed.split('.')[1];
}

export function sealer(master: Buffer, purpose: string): Sealer {
  const key = purposeKey(master, purpose);
  const kid = sealerKeyId(master, purpose);
  const aad = Buffer.from(purpose);
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', kid, iv.toString('base64url'), Buffer.concat([body, cipher.getAuthTag()]).toString('base64url')].join('.');
    },
    open(sealed) {
      const [version, sealedKid, iv, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !data) throw new SealError('sealed value has an unknown format');
      if (sealedKid !== kid) throw new SealError(`sealed with another master key (${sealedKid}); was TAPPROOF_MASTER_KEY changed?`);
      const bytes = Buffer.from(data, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url')).setAAD(aad);
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
    },
  };
}
