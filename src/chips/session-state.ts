// A session persisted between two round trips of a remote write: the server keeps it, sealed, while the writer relays the next APDU.
import { Ev2Session, LrpSession } from './secure-messaging.js';

/** Hex strings; secrets: never log them. */
export type SessionState =
  { kind: 'aes'; ti: string; cmdCtr: number; encKey: string; macKey: string } | { kind: 'lrp'; ti: string; cmdCtr: number; master: string; encCtr: number };

export function sessionState(session: Ev2Session): SessionState {
  const ti = session.ti.toString('hex');
  if (session instanceof LrpSession) return { kind: 'lrp', ti, cmdCtr: session.cmdCtr, master: session.master.toString('hex'), encCtr: session.encCtr };
  return { kind: 'aes', ti, cmdCtr: session.cmdCtr, encKey: session.encKey.toString('hex'), macKey: session.macKey.toString('hex') };
}

/** The session back from sessionState(); throws TypeError on anything malformed. */
export function restoreSession(state: SessionState): Ev2Session {
  const bytes = (s: unknown, n: number, what: string): Buffer => {
    if (typeof s !== 'string' || s.length !== n * 2 || !/^[0-9a-fA-F]*$/.test(s)) throw new TypeError(`session state: ${what} must be ${n} bytes of hex`);
    return Buffer.from(s, 'hex');
  };
  const counter = (v: unknown, max: number, what: string): number => {
    if (!Number.isInteger(v) || (v as number) < 0 || (v as number) > max) throw new TypeError(`session state: ${what} out of range`);
    return v as number;
  };
  const ti = bytes(state?.ti, 4, 'ti');
  const cmdCtr = counter(state.cmdCtr, 0xffff, 'cmdCtr');
  if (state.kind === 'lrp') return new LrpSession(bytes(state.master, 16, 'master'), ti, cmdCtr, counter(state.encCtr, 0xffffffff, 'encCtr'));
  if (state.kind === 'aes') return new Ev2Session({ encKey: bytes(state.encKey, 16, 'encKey'), macKey: bytes(state.macKey, 16, 'macKey') }, ti, cmdCtr);
  throw new TypeError('session state: kind must be aes or lrp');
}
