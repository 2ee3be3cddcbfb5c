// Sealing of secrets kept at rest (webhook signing secrets, chip key material):
// AES-256-GCM under a key derived per purpose from the deployment master key.
// The master key is TAPPROOF_MASTER_KEY when the operator sets one; otherwise
// one is generated on first use and kept in `settings`, so a copied database
// alone still needs that row, and a deployment that later sets its own key
// fails loudly (the key id in every sealed value no longer matches).
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Db } from '../db/database.js';

const SETTING = 'master_key';
const masters = new WeakMap<Db, Promise<Buffer>>();

async function generatedMasterKey(db: Db): Promise<Buffer> {
  // Several processes may start together: the first insert wins, everyone reads the winner.
  await db.kysely
    .insertInto('settings')
    .values({ name: SETTING, value: randomBytes(32).toString('hex') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.kysely.selectFrom('settings').select('value').where('name', '=', SETTING).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'hex');
}

/** The deployment's 32-byte master key (configured, or generated once and stored). */
export function masterKey({ db, config }: AppContext): Promise<Buffer> {
  let key = masters.get(db);
  if (!key) {
    key = config.masterKey ? Promise.resolve(Buffer.from(config.masterKey, 'hex')) : generatedMasterKey(db);
    key.catch(() => masters.delete(db));
    masters.set(db, key);
  }
  return key;
}

export class SealError extends Error {}

/** Seals and opens values for one purpose (the purpose is both the HKDF info and the AAD). */
export interface Sealer {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function sealer(master: Buffer, purpose: string): Sealer {
  const key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `tapproof/${purpose}`, 32));
  const kid = createHash('sha256').update(key).digest('base64url').slice(0, 8);
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

/** The sealer for `purpose` under the deployment's master key. */
export async function sealerFor(ctx: AppContext, purpose: string): Promise<Sealer> {
  return sealer(await masterKey(ctx), purpose);
}
