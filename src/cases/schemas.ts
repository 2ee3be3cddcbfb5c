import { Type } from '@sinclair/typebox';
import { Timestamp, resourceOf } from '../http/schemas.js';
import { KeysetQuery, Links, enumOf } from '../http/query.js';
import { SIGNALS } from '../signals/index.js';
import { Verification } from '../verifications/index.js';
import { ATTRIBUTES, CASE_STATES, NOTE_BODY, RESOLUTIONS } from './rules.js';

const Signal = enumOf(SIGNALS);
const CaseState = enumOf(CASE_STATES);
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });

export const Case = Type.Object(
  {
    ...resourceOf(
      'cases',
      Type.Object({
        tag_id: Type.String(),
        state: CaseState,
        opened_at: Type.String({ description: 'ISO 8601, microsecond precision, UTC: the scanned_at of its first scan' }),
        last_seen_at: Type.String({ description: 'The scanned_at of its newest scan' }),
        updated_at: Timestamp,
        scans: Type.Integer({ minimum: 1, description: 'How many flagged scans it holds' }),
        signals: Type.Array(Signal, { description: 'The signals its scans carry, in the signals’ order' }),
        by_signal: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Scans per signal (a scan with two signals counts for both)' }),
        countries: Type.Array(Type.String(), { description: 'The countries its scans came from (ISO 3166-1 alpha-2), sorted; unknown ones are left out' }),
        assignee_id: nullable(Type.String(), 'The person working it (usr_…)'),
        resolution: nullable(enumOf(RESOLUTIONS), 'Set when resolved'),
        resolution_note: nullable(Type.String(), 'Why, when resolved'),
        previous_case_id: nullable(Type.String(), "The tag's previous case (resolved) when this one opened after it"),
        acknowledged_at: nullable(Timestamp, 'When it was first acknowledged'),
        resolved_at: nullable(Timestamp, 'When it was resolved'),
      }),
      'Prefix case_',
    ).properties,
  },
  { title: 'Case' },
);

const CaseNote = resourceOf(
  'case-notes',
  Type.Object({
    case_id: Type.String(),
    body: Type.String(),
    author: Type.Object(
      { type: enumOf(['key', 'user', 'cli', 'system'] as const), id: Type.String() },
      { description: 'Who wrote it: a key or a person of the console' },
    ),
    created_at: Timestamp,
  }),
  'Prefix note_',
);

const CaseScan = Type.Object({
  ...Verification.properties,
  meta: Type.Object({
    in_case: Type.Boolean({ description: 'true: a scan of the case; false: the genuine scan a country_jump of the case was measured from' }),
    jumped_from: nullable(Type.String(), 'For a country_jump: the id of the genuine scan before it, which it jumped from (included too)'),
  }),
});

export const CASE_SCANS_SHOWN = 100;

export const CaseDocument = Type.Object({
  data: Case,
  included: Type.Array(Type.Union([CaseScan, CaseNote]), {
    description: `The case's newest ${CASE_SCANS_SHOWN} scans, newest first (GET /verifications?case_id= pages through all of them), and the scans their country jumps came from; then its notes, oldest first`,
  }),
});

export const CasePage = Type.Object({
  data: Type.Array(Case),
  links: Links,
  meta: Type.Object({
    counts: Type.Object(
      Object.fromEntries(CASE_STATES.map((s) => [s, Type.Integer()])) as Record<(typeof CASE_STATES)[number], ReturnType<typeof Type.Integer>>,
      {
        description: 'Cases per state under the other filters (state itself left out): what each tab of states would list',
      },
    ),
  }),
});

export const ListCasesQuery = Type.Object({
  state: Type.Optional(CaseState),
  signal: Type.Optional(Signal),
  tag_id: Type.Optional(Type.String({ description: "Only this tag's cases" })),
  assignee_id: Type.Optional(Type.String({ description: 'Only the cases of this person (usr_…), or `none` for the unassigned' })),
  since: Type.Optional(Type.String({ description: 'Opened at or after; ISO 8601' })),
  until: Type.Optional(Type.String({ description: 'Opened before; ISO 8601' })),
  ...KeysetQuery,
});

export const UpdateCaseBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('cases'),
    id: Type.Optional(Type.String()),
    attributes: Type.Object({
      state: Type.Optional(ATTRIBUTES.state.schema),
      assignee_id: Type.Optional(ATTRIBUTES.assignee_id.schema),
      resolution: Type.Optional(ATTRIBUTES.resolution.schema),
      resolution_note: Type.Optional(ATTRIBUTES.resolution_note.schema),
    }),
  }),
});

export const CreateCaseNoteBody = Type.Object({
  data: Type.Object({ type: Type.Literal('case-notes'), attributes: Type.Object({ body: NOTE_BODY.schema }) }),
});

export const CaseNoteDocument = Type.Object({ data: CaseNote });

const Tag = Type.Unsafe({ $ref: '#/components/schemas/Tag' });

/** The body of a case.opened delivery (events.ts). */
export const CaseOpenedEvent = Type.Object(
  { type: Type.Literal('case.opened'), timestamp: Timestamp, data: Case, tag: Type.Union([Tag, Type.Null()], { description: 'null once the tag is deleted' }) },
  { title: 'case.opened' },
);

/** The body of a case.updated delivery (service.ts). */
export const CaseUpdatedEvent = Type.Object(
  {
    type: Type.Literal('case.updated'),
    timestamp: Timestamp,
    data: Case,
    tag: Type.Union([Tag, Type.Null()], { description: 'null once the tag is deleted' }),
    changes: Type.Record(Type.String(), Type.Unknown(), {
      description: 'What changed: each attribute as {from, to}; a note as `note` (its id and body)',
    }),
  },
  { title: 'case.updated' },
);
