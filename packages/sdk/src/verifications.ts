// verifications: verify a tap, read one back, walk the world's history, count it per day.
import type { CallOptions } from './call.js';
import { keyset } from './pages.js';
import { resourcePath, type Transport } from './transport.js';
import type { Verification, VerificationListParams, VerificationStats, VerificationStatsParams } from './types.js';

const isoTime = (time: Date | string | undefined) => (time instanceof Date ? time.toISOString() : time);
const isoDay = (time: Date | string | undefined) => (time instanceof Date ? time.toISOString().slice(0, 10) : time);
const flag = (value: boolean | undefined) => (value === undefined ? undefined : String(value));

export class Verifications {
  constructor(private readonly transport: Transport) {}

  /**
   * Verifies the URL a phone opened (SDM parameters included). Never resent after a lost answer:
   * the scan would then be judged a replay of itself.
   */
  async verify(url: string, options: { clientIp?: string | null } = {}, call?: CallOptions): Promise<Verification> {
    const attributes = options.clientIp === undefined ? { url } : { url, client_ip: options.clientIp };
    return (
      await this.transport.request<{ data: Verification }>('POST', '/verifications', {
        body: { data: { type: 'verifications', attributes } },
        idempotent: false,
        call,
      })
    ).data;
  }

  async get(id: string, call?: CallOptions): Promise<Verification> {
    return (await this.transport.request<{ data: Verification }>('GET', resourcePath('verifications', id), { idempotent: true, call })).data;
  }

  /**
   * Every verification of the key's world matching the filters, newest first, fetched a page
   * (`page_size`, default 25, at most 100) at a time: `for await (const v of tp.verifications.list({ tag_id }))`.
   * `{ flagged: true }` or `{ signal: 'counter_gap' }` walks the flagged scans only (docs/signals.md);
   * `{ case_id }` every scan of one case (docs/cases.md).
   */
  list(params: VerificationListParams = {}, call?: CallOptions): AsyncGenerator<Verification> {
    const { genuine, flagged, since, until, ...rest } = params;
    const query = { ...rest, genuine: flag(genuine), flagged: flag(flagged), since: isoTime(since), until: isoTime(until) };
    return keyset<Verification>(this.transport, '/verifications', query, call);
  }

  /**
   * Counts per UTC day from `since` to `until`, both included (default: the 30 days up to today): by reason,
   * by country, `flagged` (scans with any signal) and `by_signal`.
   */
  async stats(params: VerificationStatsParams = {}, call?: CallOptions): Promise<VerificationStats> {
    const query = { since: isoDay(params.since), until: isoDay(params.until) };
    return (await this.transport.request<{ meta: VerificationStats }>('GET', '/verifications/stats', { query, idempotent: true, call })).meta;
  }
}
