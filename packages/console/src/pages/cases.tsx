// Cases: a tag's flagged scans grouped into one incident each (docs/cases.md), in tabs by state with their
// counts, narrowed by signal, tag or who holds them, all kept in the URL; keyset pages like Scans.
import { useEffect, useState } from 'preact/hooks';
import { must } from '../api.ts';
import { CASE_STATES, STATE_LABELS, ageOf, assigneeLabel, type Case, type CaseState } from '../cases.ts';
import { Pager, useTrail } from '../components/pager.tsx';
import { ErrorLine, FilterActions, Head, Link, Loading, TableRegion, When } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { navigate, queryOf } from '../router.ts';
import { useSession } from '../session.ts';
import { isSignal, SIGNALS, SIGNAL_LABELS } from '../signals.ts';

const PAGE_SIZE = 25;

interface Filters {
  state: CaseState;
  signal: string;
  tag_id: string;
  /** '' anyone's, 'none' nobody's, or a person's id. */
  assignee_id: string;
}

const isState = (value: string | null): value is CaseState => CASE_STATES.includes(value as CaseState);

const filtersOf = (query: URLSearchParams): Filters => ({
  state: isState(query.get('state')) ? (query.get('state') as CaseState) : 'open',
  signal: query.get('signal') ?? '',
  tag_id: query.get('tag_id') ?? '',
  assignee_id: query.get('assignee_id') ?? '',
});

export function CasesPage(props: { query: URLSearchParams }) {
  const { api, user } = useSession();
  const applied = filtersOf(props.query);
  const cursor = props.query.get('cursor') ?? undefined;
  const key = props.query.toString();
  const [draft, setDraft] = useState<Filters>(applied);
  useEffect(() => setDraft(filtersOf(props.query)), [key]);
  const trail = useTrail();
  const [, setPrevious] = trail;
  const page = useLoad(
    () =>
      must(
        api.GET('/cases', {
          params: {
            query: {
              state: applied.state,
              // An unknown signal in a hand-edited URL lists every case rather than a 400.
              signal: isSignal(applied.signal) ? applied.signal : undefined,
              tag_id: applied.tag_id || undefined,
              assignee_id: applied.assignee_id || undefined,
              page_size: PAGE_SIZE,
              cursor,
            },
          },
        }),
      ),
    [api, key],
  );
  const open = (filters: Filters, at?: string) => {
    if (at === undefined) setPrevious([]);
    navigate(`/cases${queryOf({ ...filters, state: filters.state === 'open' ? undefined : filters.state, cursor: at })}`);
  };
  const counts = page.data?.meta.counts;
  return (
    <>
      <h1>Cases</h1>
      <p class="muted">
        Each case is one tag's flagged scans, from the first until someone resolves it. Acknowledge a case when you start on it, and resolve it with what it
        turned out to be. The tag's next flagged scan then opens a new case.
      </p>
      <nav aria-label="Case states" class="tabs">
        <ul>
          {CASE_STATES.map((state) => (
            <li key={state}>
              <Link
                to={`/cases${queryOf({ ...applied, state: state === 'open' ? undefined : state })}`}
                aria-current={state === applied.state ? 'page' : undefined}
              >
                {STATE_LABELS[state]} ({counts ? counts[state].toLocaleString('en-US') : '…'})
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <form
        class="filters"
        aria-label="Filter cases"
        onSubmit={(event) => {
          event.preventDefault();
          open(draft);
        }}
      >
        <label>
          Signal
          <select name="signal" value={draft.signal} onChange={(e) => setDraft({ ...draft, signal: e.currentTarget.value })}>
            <option value="">Any signal</option>
            {SIGNALS.map((signal) => (
              <option key={signal} value={signal}>
                {SIGNAL_LABELS[signal]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Held by
          <select name="assignee_id" value={draft.assignee_id} onChange={(e) => setDraft({ ...draft, assignee_id: e.currentTarget.value })}>
            <option value="">Anyone or nobody</option>
            <option value="none">Nobody</option>
            {user && <option value={user.id}>You</option>}
          </select>
        </label>
        <label>
          Tag id
          <input
            name="tag_id"
            value={draft.tag_id}
            onInput={(e) => setDraft({ ...draft, tag_id: e.currentTarget.value })}
            placeholder="tag_…"
            spellcheck={false}
          />
        </label>
        <FilterActions onClear={() => open({ state: applied.state, signal: '', tag_id: '', assignee_id: '' })} />
      </form>
      <ErrorLine error={page.error} />
      <Loading loading={page.loading} />
      {page.data && <CaseTable cases={page.data.data} me={user?.id ?? null} state={applied.state} />}
      <Pager label="Case pages" cursor={cursor} next={page.data?.links.next} trail={trail} open={(at) => open(applied, at)} />
    </>
  );
}

function CaseTable(props: { cases: Case[]; me: string | null; state: CaseState }) {
  if (props.cases.length === 0) return <p>No {STATE_LABELS[props.state].toLowerCase()} cases.</p>;
  return (
    <TableRegion label={`${STATE_LABELS[props.state]} cases`}>
      <table>
        <caption class="visually-hidden">{STATE_LABELS[props.state]} cases, newest opened first</caption>
        <Head columns={['Case', 'Tag', 'Scans', 'Signals', 'Countries', 'Opened', 'Age', 'Held by']} />
        <tbody>
          {props.cases.map(({ id, attributes: a }) => (
            <tr key={id}>
              <td>
                <Link to={`/cases/${id}`}>{id}</Link>
              </td>
              <td>
                <Link to={`/tags/${a.tag_id}`}>{a.tag_id}</Link>
              </td>
              <td>{a.scans.toLocaleString('en-US')}</td>
              <td>{a.signals.map((s) => SIGNAL_LABELS[s]).join(', ')}</td>
              <td>{a.countries.join(', ') || '—'}</td>
              <td>
                <When iso={a.opened_at} />
              </td>
              <td>{ageOf(a.opened_at)}</td>
              <td>{assigneeLabel(a.assignee_id, props.me)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}
