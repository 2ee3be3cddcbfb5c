import type { ResourceObject } from '../http/jsonapi.js';
import type { CaseState } from '../db/schema.js';
import { signalsOf, type Signal } from '../signals/index.js';
import { isoMicros } from '../time.js';
import { countsOf } from './counts.js';
import type { CaseNoteRow, CaseRow } from './repository.js';

export interface CaseAttributes {
  tag_id: string;
  state: CaseState;
  opened_at: string;
  last_seen_at: string;
  updated_at: string;
  scans: number;
  signals: Signal[];
  by_signal: Record<Signal, number>;
  countries: string[];
  assignee_id: string | null;
  resolution: string | null;
  resolution_note: string | null;
  previous_case_id: string | null;
  acknowledged_at: string | null;
  resolved_at: string | null;
}

const time = (micros: number | null) => (micros === null ? null : isoMicros(micros));

export function renderCase(row: CaseRow): ResourceObject<CaseAttributes> {
  return {
    type: 'cases',
    id: row.id,
    attributes: {
      tag_id: row.tag_id,
      state: row.state,
      opened_at: isoMicros(row.opened_at),
      last_seen_at: isoMicros(row.last_seen_at),
      updated_at: isoMicros(row.updated_at),
      scans: row.scans,
      signals: signalsOf(row.signals === '' ? null : row.signals),
      by_signal: countsOf(row.signal_counts),
      countries: JSON.parse(row.countries) as string[],
      assignee_id: row.assignee_id,
      resolution: row.resolution,
      resolution_note: row.resolution_note,
      previous_case_id: row.previous_case_id,
      acknowledged_at: time(row.acknowledged_at),
      resolved_at: time(row.resolved_at),
    },
  };
}

export interface CaseNoteAttributes {
  case_id: string;
  body: string;
  author: { type: string; id: string };
  created_at: string;
}

export function renderNote(row: CaseNoteRow): ResourceObject<CaseNoteAttributes> {
  return {
    type: 'case-notes',
    id: row.id,
    attributes: { case_id: row.case_id, body: row.body, author: { type: row.author_type, id: row.author_id }, created_at: isoMicros(row.created_at) },
  };
}
