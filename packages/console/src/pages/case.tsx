// One case: what it is (its tag, the item's comment and product, its scans per signal and country), what the
// team made of it (state, who holds it, the resolution, the notes), its scans as a timeline with the scan each
// country jump came from, and a map of where they came from. A write role acknowledges, takes, hands back,
// resolves and notes it; a read role sees the same without the forms.
import { useState } from 'preact/hooks';
import { describeProblems, must, type Api, type Verification } from '../api.ts';
import { RESOLUTIONS, RESOLUTION_LABELS, STATE_LABELS, assigneeLabel, type Case, type Resolution } from '../cases.ts';
import { SignalBadges } from '../components/signal-badges.tsx';
import { ErrorLine, Facts, Head, Link, Loading, MessageLine, Outcome, TableRegion, When } from '../components/ui.tsx';
import { WorldMap, type CountryCounts } from '../components/world-map.tsx';
import { useLoad, useWrite, type Writes } from '../hooks.ts';
import { useSession } from '../session.ts';
import { SIGNAL_LABELS } from '../signals.ts';

type CaseScan = Verification & { meta: { in_case: boolean; jumped_from: string | null } };
interface CaseNote {
  id: string;
  type: 'case-notes';
  attributes: { body: string; author: { type: string; id: string }; created_at: string };
}

async function loadCase(api: Api, id: string) {
  const body = await must(api.GET('/cases/{id}', { params: { path: { id } } }));
  const included = body.included as unknown as (CaseScan | CaseNote)[];
  const scans = included.filter((r): r is CaseScan => r.type === 'verifications');
  const notes = included.filter((r): r is CaseNote => r.type === 'case-notes');
  const tagId = body.data.attributes.tag_id;
  // The item behind the tag: its comment and product, when the tag still exists.
  const [tag, links] = await Promise.all([
    api.GET('/tags/{id}', { params: { path: { id: tagId } } }).then((r) => r.data?.data ?? null),
    api.GET('/tags/{id}/links', { params: { path: { id: tagId } } }).then((r) => r.data?.data ?? null),
  ]);
  return { case: body.data, scans, notes, tag, links };
}

/** Where the case's scans came from: its own flagged scans per country, beside the genuine scans its jumps left from. */
function countriesOf(scans: CaseScan[]): { counts: CountryCounts; unknown: { scans: number; flagged: number } } {
  const counts: Record<string, { scans: number; flagged: number }> = {};
  const unknown = { scans: 0, flagged: 0 };
  for (const scan of scans) {
    const at = scan.attributes.country ? (counts[scan.attributes.country] ??= { scans: 0, flagged: 0 }) : unknown;
    at.scans++;
    if (scan.meta.in_case) at.flagged++;
  }
  return { counts, unknown };
}

export function CasePage(props: { id: string }) {
  const { api, can, user } = useSession();
  const loaded = useLoad(() => loadCase(api, props.id), [api, props.id]);
  const writes = useWrite(describeProblems);
  const d = loaded.data;
  const a = d?.case.attributes;
  const where = d ? countriesOf(d.scans) : null;
  return (
    <>
      <h1>Case {props.id}</h1>
      <p>
        <Link to="/cases">All cases</Link>
      </p>
      <ErrorLine error={loaded.error} />
      <Loading loading={loaded.loading} />
      {d && a && (
        <>
          <Facts
            items={[
              ['State', STATE_LABELS[a.state]],
              ['Held by', assigneeLabel(a.assignee_id, user?.id ?? null)],
              ['Resolution', a.resolution ? `${RESOLUTION_LABELS[a.resolution]}${a.resolution_note ? `: ${a.resolution_note}` : ''}` : null],
              ['Tag', <Link to={`/tags/${a.tag_id}`}>{a.tag_id}</Link>],
              ['Tag comment', d.tag?.attributes.comment || null],
              ['Product', d.links?.attributes.product ? `${d.links.attributes.product.name} (${d.links.attributes.product.id})` : null],
              ['Opened', <When iso={a.opened_at} />],
              ['Last scan', <When iso={a.last_seen_at} />],
              ['Scans', a.scans.toLocaleString('en-US')],
              [
                'By signal',
                Object.entries(a.by_signal)
                  .filter(([, n]) => n > 0)
                  .map(([signal, n]) => `${SIGNAL_LABELS[signal as keyof typeof SIGNAL_LABELS] ?? signal}: ${n}`)
                  .join(', '),
              ],
              ['Countries', a.countries.join(', ') || 'unknown'],
              ['Previous case', a.previous_case_id ? <Link to={`/cases/${a.previous_case_id}`}>{a.previous_case_id}</Link> : null],
            ]}
          />
          {can.write && <Triage kase={d.case} me={user?.id ?? null} writes={writes} onChanged={loaded.reload} />}
          <MessageLine message={writes.message} />
          <h2>Where its scans came from</h2>
          <WorldMap counts={where!.counts} unknown={where!.unknown.scans > 0 ? where!.unknown : undefined} label="The case's scans by country" />
          <h2>Scans</h2>
          <Timeline caseId={props.id} scans={d.scans} total={a.scans} />
          <h2>Notes</h2>
          <Notes notes={d.notes} me={user?.id ?? null} />
          {can.write && a.state !== 'resolved' && <NoteForm caseId={props.id} writes={writes} onAdded={loaded.reload} />}
        </>
      )}
    </>
  );
}

function Triage(props: { kase: Case; me: string | null; writes: Writes; onChanged: () => void }) {
  const { api } = useSession();
  const { id, attributes: a } = props.kase;
  const [resolution, setResolution] = useState<Resolution>('counterfeit_confirmed');
  const [note, setNote] = useState('');
  if (a.state === 'resolved') return null;
  const change = (attributes: Record<string, unknown>, done: string) =>
    void props.writes.send(api.PATCH('/cases/{id}', { params: { path: { id } }, body: { data: { type: 'cases', id, attributes } } as never }), () => {
      props.onChanged();
      return done;
    });
  return (
    <section aria-labelledby="triage">
      <h2 id="triage">Work the case</h2>
      <div class="actions">
        {a.state === 'open' && (
          <button
            type="button"
            onClick={() => change({ state: 'acknowledged', ...(a.assignee_id === null && props.me ? { assignee_id: props.me } : {}) }, 'Acknowledged.')}
          >
            Acknowledge
          </button>
        )}
        {a.state === 'acknowledged' && (
          <button type="button" class="secondary" onClick={() => change({ state: 'open' }, 'Handed back: open again.')}>
            Hand back
          </button>
        )}
        {props.me && a.assignee_id !== props.me && (
          <button type="button" class="secondary" onClick={() => change({ assignee_id: props.me }, 'The case is yours.')}>
            Take it
          </button>
        )}
        {a.assignee_id !== null && (
          <button type="button" class="secondary" onClick={() => change({ assignee_id: null }, 'Nobody holds the case now.')}>
            Unassign
          </button>
        )}
      </div>
      <form
        aria-label="Resolve the case"
        onSubmit={(event) => {
          event.preventDefault();
          change({ state: 'resolved', resolution, ...(note.trim() ? { resolution_note: note.trim() } : {}) }, 'Resolved.');
        }}
      >
        <label>
          Resolution
          <select name="resolution" value={resolution} onChange={(e) => setResolution(e.currentTarget.value as Resolution)}>
            {RESOLUTIONS.map((r) => (
              <option key={r} value={r}>
                {RESOLUTION_LABELS[r]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Why (required for Other)
          <input name="resolution_note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        </label>
        <button type="submit">Resolve</button>
      </form>
    </section>
  );
}

function Timeline(props: { caseId: string; scans: CaseScan[]; total: number }) {
  const shown = props.scans.filter((s) => s.meta.in_case).length;
  const total = props.total.toLocaleString('en-US');
  // The case page reads its newest scans only; the Scans page pages through all of them, with filters and CSV.
  return (
    <>
      <p class="muted">
        {shown < props.total && `The newest ${shown} of its ${total} scans. `}
        <Link to={`/scans?case_id=${props.caseId}`}>{props.total === 1 ? 'Its scan' : `All ${total} scans`}</Link> on the Scans page.
      </p>
      <TableRegion label="The case's scans">
        <table>
          <caption class="visually-hidden">The case's scans, newest first, with the genuine scans its country jumps came from</caption>
          <Head columns={['Scanned', 'Outcome', 'Signals', 'Country', 'Client IP', 'Jumped from', 'Scan']} />
          <tbody>
            {props.scans.map((scan) => (
              <tr key={scan.id} class={scan.meta.in_case ? undefined : 'muted'}>
                <td>
                  <When iso={scan.attributes.scanned_at} />
                </td>
                <td>
                  <Outcome scan={scan.attributes} />
                  {!scan.meta.in_case && ' (where a jump came from)'}
                </td>
                <td>
                  <SignalBadges signals={scan.attributes.signals} />
                </td>
                <td>{scan.attributes.country ?? 'unknown'}</td>
                <td>{scan.attributes.client_ip ?? 'not given'}</td>
                <td>{scan.meta.jumped_from ? <Link to={`/scans/${scan.meta.jumped_from}`}>{scan.meta.jumped_from}</Link> : '—'}</td>
                <td>
                  <Link to={`/scans/${scan.id}`}>{scan.id}</Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
    </>
  );
}

function Notes(props: { notes: CaseNote[]; me: string | null }) {
  if (props.notes.length === 0) return <p class="muted">No notes yet.</p>;
  return (
    <ol class="notes">
      {props.notes.map((n) => (
        <li key={n.id}>
          <p class="muted">
            <When iso={n.attributes.created_at} /> · {n.attributes.author.id === props.me ? 'you' : `${n.attributes.author.type} ${n.attributes.author.id}`}
          </p>
          <p class="note-body">{n.attributes.body}</p>
        </li>
      ))}
    </ol>
  );
}

function NoteForm(props: { caseId: string; writes: Writes; onAdded: () => void }) {
  const { api } = useSession();
  const [body, setBody] = useState('');
  return (
    <form
      aria-label="Add a note"
      onSubmit={(event) => {
        event.preventDefault();
        void props.writes
          .send(
            api.POST('/cases/{id}/notes', { params: { path: { id: props.caseId } }, body: { data: { type: 'case-notes', attributes: { body } } } as never }),
            () => {
              props.onAdded();
              return 'Note added.';
            },
          )
          .then((added) => added && setBody(''));
      }}
    >
      <label>
        Note
        <textarea name="body" rows={3} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
      </label>
      <button type="submit">Add the note</button>
    </form>
  );
}
