// Sessions and keys, read-only, and the caller's team, whose signal thresholds can be changed.
import type { CallOptions } from './call.js';
import { resourcePath, type Transport } from './transport.js';
import type { Key, Session, SignalThresholdsUpdate, Team } from './types.js';

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
