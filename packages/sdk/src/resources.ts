// Sessions (read-only), keys (admin keys create, roll and revoke them), and the caller's team, whose signal
// thresholds can be changed.
import type { CallOptions } from './call.js';
import { resourcePath, type Transport } from './transport.js';
import type { Key, KeyInput, NewKey, Session, SignalThresholdsUpdate, Team } from './types.js';

export class Sessions {
  constructor(private readonly transport: Transport) {}

  async get(id: string, call?: CallOptions): Promise<Session> {
    return (await this.transport.request<{ data: Session }>('GET', resourcePath('sessions', id), { idempotent: true, call })).data;
  }
}

export class Keys {
  constructor(private readonly transport: Transport) {}

  /** The team's keys of the caller's mode, oldest first, revoked ones included; never a key's text. */
  async list(call?: CallOptions): Promise<Key[]> {
    return (await this.transport.request<{ data: Key[] }>('GET', '/keys', { idempotent: true, call })).data;
  }

  async get(id: string, call?: CallOptions): Promise<Key> {
    return (await this.transport.request<{ data: Key }>('GET', resourcePath('keys', id), { idempotent: true, call })).data;
  }

  /** The key making the call: its role, name and expiry (every role may ask). */
  async current(call?: CallOptions): Promise<Key> {
    return (await this.transport.request<{ data: Key }>('GET', '/keys/current', { idempotent: true, call })).data;
  }

  /** A new key of the caller's team and mode (admin keys); its text is in `attributes.key`, this once. */
  async create(attributes: KeyInput, call?: CallOptions): Promise<NewKey> {
    const body = { data: { type: 'keys', attributes } };
    return (await this.transport.request<{ data: NewKey }>('POST', '/keys', { body, idempotent: false, call })).data;
  }

  /**
   * A new key replacing `id` (same role, name and expiry; its text in `attributes.key`, this once); the old key keeps
   * working `expiresIn` seconds (0, the default, to 604800). Not resent: a lost answer made a key whose text is gone,
   * and the retry would be refused (the key rolls once).
   */
  async roll(id: string, options: { expiresIn?: number } = {}, call?: CallOptions): Promise<NewKey> {
    const body = { data: { type: 'keys', attributes: options.expiresIn === undefined ? {} : { expires_in: options.expiresIn } } };
    return (await this.transport.request<{ data: NewKey }>('POST', `${resourcePath('keys', id)}/roll`, { body, idempotent: false, call })).data;
  }

  /** Revokes a key: every server refuses it from its next request. Revoking again changes nothing. */
  async revoke(id: string, call?: CallOptions): Promise<void> {
    await this.transport.request('DELETE', resourcePath('keys', id), { idempotent: true, call });
  }
}

export class Teams {
  constructor(private readonly transport: Transport) {}

  /** The team the key belongs to, with the signal thresholds of the key's mode (`attributes.signal_thresholds`). */
  async current(call?: CallOptions): Promise<Team> {
    return (await this.transport.request<{ data: Team }>('GET', '/teams/current', { idempotent: true, call })).data;
  }

  /**
   * Changes any of the signal thresholds of the key's team and mode (the others keep their values); returns the
   * team with the thresholds now in force. The server that takes it applies them at once, every other within 5 s.
   */
  async updateThresholds(thresholds: SignalThresholdsUpdate, call?: CallOptions): Promise<Team> {
    const body = { data: { type: 'teams', attributes: { signal_thresholds: thresholds } } };
    // Setting values again leaves the same state, so a request whose answer was lost is resent.
    return (await this.transport.request<{ data: Team }>('PATCH', '/teams/current', { body, idempotent: true, call })).data;
  }
}
