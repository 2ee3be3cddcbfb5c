// A software authenticator: one discoverable ES256 (P-256) credential, answering a server's WebAuthn
// options with the JSON form of the credential a browser would send (as @simplewebauthn/browser makes
// it), attestation 'none'. Each answer can be forged (another origin or host, a counter, a signature)
// to see the server refuse it.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { encode } from 'cborg';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

/** What to falsify in one answer; everything else is as a genuine authenticator makes it. */
export interface Forgery {
  /** clientDataJSON's origin. */
  origin?: string;
  /** The host whose SHA-256 leads the authenticator data. */
  rpId?: string;
  /** The signature counter sent, instead of the next one. */
  signCount?: number;
  /** A signature over other bytes. */
  badSignature?: boolean;
  /** clientDataJSON's challenge, instead of the options'. */
  challenge?: string;
  /** clientDataJSON's type. */
  type?: string;
  /** The user handle sent on sign-in; null sends none. */
  userHandle?: string | null;
  /** The credential id sent on sign-in. */
  credentialId?: string;
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();

function uint32(n: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(n);
  return buffer;
}

export class SoftAuthenticator {
  readonly credentialId: Buffer = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  /** The counter of the last answer; each sign-in sends one more. */
  signCount: number;
  /** The user handle stored at registration, sent back on sign-in. */
  userHandle: string | null = null;
  private readonly counting: boolean;

  /**
   * `origin` is the page the browser shows; the RP ID is its host unless given. A counting authenticator
   * sends one more than its last counter on every sign-in; one that does not (as many synced passkeys)
   * always sends `signCount`.
   */
  constructor(
    readonly origin: string,
    readonly rpId: string = new URL(origin).hostname,
    options: { signCount?: number; counting?: boolean } = {},
  ) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
    this.signCount = options.signCount ?? 0;
    this.counting = options.counting ?? true;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The credential's public key as COSE_Key (EC2, ES256, P-256). */
  coseKey(): Uint8Array {
    const jwk = this.publicKey.export({ format: 'jwk' });
    return encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
  }

  private clientData(type: string, challenge: string, forge: Forgery): Buffer {
    return Buffer.from(
      JSON.stringify({ type: forge.type ?? type, challenge: forge.challenge ?? challenge, origin: forge.origin ?? this.origin, crossOrigin: false }),
    );
  }

  private authenticatorData(flags: number, signCount: number, forge: Forgery, attested?: Buffer): Buffer {
    return Buffer.concat([sha256(forge.rpId ?? this.rpId), Buffer.from([flags]), uint32(signCount), ...(attested ? [attested] : [])]);
  }

  /** Answers registration options (navigator.credentials.create). */
  register(options: { challenge: string; user: { id: string } }, forge: Forgery = {}): RegistrationResponseJSON {
    this.userHandle = options.user.id;
    const clientDataJSON = this.clientData('webauthn.create', options.challenge, forge);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, Buffer.from(this.coseKey())]);
    const authData = this.authenticatorData(FLAG_UP | FLAG_UV | FLAG_AT, forge.signCount ?? this.signCount, forge, attested);
    const attestationObject = encode({ fmt: 'none', attStmt: {}, authData: new Uint8Array(authData) });
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
    };
  }

  /** Answers sign-in options (navigator.credentials.get). */
  assert(options: { challenge: string }, forge: Forgery = {}): AuthenticationResponseJSON {
    if (forge.signCount === undefined && this.counting) this.signCount++;
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, forge);
    const authData = this.authenticatorData(FLAG_UP | FLAG_UV, forge.signCount ?? this.signCount, forge);
    const signed = forge.badSignature ? Buffer.concat([authData, sha256('something else')]) : Buffer.concat([authData, sha256(clientDataJSON)]);
    const signature = sign('sha256', signed, { key: this.privateKey, dsaEncoding: 'der' });
    const userHandle = forge.userHandle === undefined ? this.userHandle : forge.userHandle;
    const id = forge.credentialId ?? this.id;
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
      clientExtensionResults: {},
    };
  }
}
