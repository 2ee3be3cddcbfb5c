// cases: a tag's flagged scans grouped for triage (docs/cases.md): list them, read one with its scans and notes,
// triage it (state, assignee, resolution), add a note.
import type { CallOptions } from './call.js';
import { keyset } from './pages.js';
import { resourcePath, type Transport } from './transport.js';
import type { Case, CaseCounts, CaseDocument, CaseListParams, CaseNote, CaseUpdate } from './types.js';

const isoTime = (time: Date | string | undefined) => (time instanceof Date ? time.toISOString() : time);

export class Cases {
  constructor(private readonly transport: Transport) {}

  /**
   * Every case of the key's world matching the filters, newest opened first, a page at a time:
   * `for await (const c of tp.cases.list({ state: 'open' }))`. `assignee_id: 'none'` walks the unassigned.
   */
  list(params: CaseListParams = {}, call?: CallOptions): AsyncGenerator<Case> {
    const { since, until, ...rest } = params;
    return keyset<Case>(this.transport, '/cases', { ...rest, since: isoTime(since), until: isoTime(until) }, call);
  }

  /** How many cases are in each state under the filters (`state` left out): what a tab of states would count. */
  async counts(params: Omit<CaseListParams, 'state'> = {}, call?: CallOptions): Promise<CaseCounts> {
    const { since, until, ...rest } = params;
    const query = { ...rest, since: isoTime(since), until: isoTime(until), page_size: 1 };
    return (await this.transport.request<{ meta: { counts: CaseCounts } }>('GET', '/cases', { query, idempotent: true, call })).meta.counts;
  }

  /** The case (`data`) with its newest scans, the scans its country jumps came from, and its notes (`included`). */
  async get(id: string, call?: CallOptions): Promise<CaseDocument> {
    return this.transport.request<CaseDocument>('GET', resourcePath('cases', id), { idempotent: true, call });
  }

  /** Triages the case: `{ state: 'acknowledged', assignee_id }`, `{ state: 'resolved', resolution: 'false_positive' }`. */
  async update(id: string, attributes: CaseUpdate, call?: CallOptions): Promise<Case> {
    const body = { data: { type: 'cases', id, attributes } };
    // Setting the same values again changes nothing, so a request whose answer was lost is resent.
    return (await this.transport.request<{ data: Case }>('PATCH', resourcePath('cases', id), { body, idempotent: true, call })).data;
  }

  /** Appends a note to the case's thread. Not resent: a lost answer may have added it already. */
  async addNote(id: string, body: string, call?: CallOptions): Promise<CaseNote> {
    const document = { data: { type: 'case-notes', attributes: { body } } };
    return (await this.transport.request<{ data: CaseNote }>('POST', `${resourcePath('cases', id)}/notes`, { body: document, idempotent: false, call })).data;
  }
}
