// The read-only resources: sessions, keys and the caller's team.
import type { CallOptions } from './call.js';
import { resourcePath, type Transport } from './transport.js';
import type { Key, Session, Team } from './types.js';

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

  /** The team the key belongs to. */
  async current(call?: CallOptions): Promise<Team> {
    return (await this.transport.request<{ data: Team }>('GET', '/teams/current', { idempotent: true, call })).data;
  }
}
