// Scans: the API's filters (tag, case, outcome, reason, country, window) kept in the URL, so a filtered list
// can be linked to and reloaded, and the same filters' CSV export; keyset pages walked forward by
// links.next and back by the cursors seen; each scan with its tag's comment.
import { useState } from 'preact/hooks';
import { must } from '../api.ts';
import { CsvExport } from '../components/csv-export.tsx';
import { Pager, useTrail } from '../components/pager.tsx';
import { ScanTable } from '../components/scan-table.tsx';
import { ErrorLine, FilterActions, Loading } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { REASONS, REASON_LABELS } from '../reasons.ts';
import { navigate, queryOf } from '../router.ts';
import { useSession } from '../session.ts';
import { commentsOf } from '../tag-comments.ts';

const FILTERS = ['tag_id', 'case_id', 'genuine', 'reason', 'country', 'since', 'until'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

function filtersOf(query: URLSearchParams): Filters {
  return Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ''])) as Filters;
}

/** The filters as the API reads them (GET /verifications and its export alike); an empty one is left out. */
function apiFilters(applied: Filters) {
  return {
    tag_id: applied.tag_id || undefined,
    case_id: applied.case_id || undefined,
    genuine: (applied.genuine || undefined) as 'true' | 'false' | undefined,
    reason: (applied.reason || undefined) as (typeof REASONS)[number] | undefined,
    country: applied.country || undefined,
    since: applied.since || undefined,
    until: applied.until || undefined,
  };
}

/**
 * A country as typed, as the API takes it: `de ` is meant as DE. Anything else is sent as typed, for the API
 * to refuse with its reason (the API itself never guesses).
 */
const countryOf = (typed: string) => (/^\s*[A-Za-z]{2}\s*$/.test(typed) ? typed.trim().toUpperCase() : typed);

export function ScansPage(props: { query: URLSearchParams }) {
  const { api } = useSession();
  const applied = filtersOf(props.query);
  const cursor = props.query.get('cursor') ?? undefined;
  const [draft, setDraft] = useState<Filters>(applied);
  const trail = useTrail();
  const [, setPrevious] = trail;
  const key = props.query.toString();
  const page = useLoad(async () => {
    const body = await must(api.GET('/verifications', { params: { query: { ...apiFilters(applied), page_size: 25, cursor } } }));
    return { ...body, comments: await commentsOf(api, body.data) };
  }, [api, key]);
  const set = (name: keyof Filters) => (event: Event) => setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value });
  return (
    <>
      <h1>Scans</h1>
      <form
        class="filters"
        aria-label="Filter scans"
        onSubmit={(event) => {
          event.preventDefault();
          const filters = { ...draft, country: countryOf(draft.country) };
          setDraft(filters);
          setPrevious([]);
          navigate(`/scans${queryOf(filters)}`);
        }}
      >
        <label>
          Tag id
          <input name="tag_id" value={draft.tag_id} onInput={set('tag_id')} placeholder="tag_…" spellcheck={false} />
        </label>
        <label>
          Case id
          <input name="case_id" value={draft.case_id} onInput={set('case_id')} placeholder="case_…" spellcheck={false} />
        </label>
        <label>
          Outcome
          <select name="genuine" value={draft.genuine} onChange={set('genuine')}>
            <option value="">Any</option>
            <option value="true">Genuine</option>
            <option value="false">Not genuine</option>
          </select>
        </label>
        <label>
          Reason
          <select name="reason" value={draft.reason} onChange={set('reason')}>
            <option value="">Any</option>
            {REASONS.map((r) => (
              <option key={r} value={r}>
                {REASON_LABELS[r]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Country
          <input
            name="country"
            value={draft.country}
            onInput={set('country')}
            placeholder="DE"
            autocomplete="off"
            spellcheck={false}
            aria-describedby="country-hint"
          />
        </label>
        <label>
          Since
          <input name="since" type="date" value={draft.since} onInput={set('since')} />
        </label>
        <label>
          Until
          <input name="until" type="date" value={draft.until} onInput={set('until')} />
        </label>
        <FilterActions
          onClear={() => {
            setDraft(filtersOf(new URLSearchParams()));
            setPrevious([]);
            navigate('/scans');
          }}
        />
      </form>
      <p id="country-hint" class="muted">
        Country: its two-letter ISO 3166-1 code (DE, FR, US). A scan of no known country is under none.
      </p>
      <CsvExport
        label="Export CSV"
        fallbackName="scans.csv"
        load={() => api.GET('/verifications/export', { params: { query: apiFilters(applied) }, parseAs: 'blob', headers: { Accept: 'text/csv' } })}
      />
      <ErrorLine error={page.error} />
      <Loading loading={page.loading} />
      {page.data && <ScanTable label="Scans" scans={page.data.data} comments={page.data.comments} />}
      <Pager
        label="Scan pages"
        cursor={cursor}
        next={page.data?.links.next}
        trail={trail}
        open={(at) => navigate(`/scans${queryOf({ ...applied, cursor: at })}`)}
      />
    </>
  );
}
