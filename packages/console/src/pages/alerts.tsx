// Alerts: the flagged scans (those carrying a counterfeit signal), newest first, each signal with what it
// means and what to do; narrowed to one signal or one tag, both kept in the URL; keyset pages like Scans.
// Below them, the team's thresholds that decide the signals.
import { useEffect, useState } from 'preact/hooks';
import { must } from '../api.ts';
import { AlertList, jumpOrigins } from '../components/alert-list.tsx';
import { Pager, useTrail } from '../components/pager.tsx';
import { ThresholdsForm } from '../components/thresholds-form.tsx';
import { ErrorLine, FilterActions, Loading } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { navigate, queryOf } from '../router.ts';
import { useSession } from '../session.ts';
import { isSignal, SIGNALS, SIGNAL_LABELS } from '../signals.ts';
import { commentsOf } from '../tag-comments.ts';

const PAGE_SIZE = 25;

interface Filters {
  signal: string;
  tag_id: string;
}

const filtersOf = (query: URLSearchParams): Filters => ({ signal: query.get('signal') ?? '', tag_id: query.get('tag_id') ?? '' });

export function AlertsPage(props: { query: URLSearchParams }) {
  const { api } = useSession();
  const applied = filtersOf(props.query);
  const cursor = props.query.get('cursor') ?? undefined;
  const key = props.query.toString();
  const [draft, setDraft] = useState<Filters>(applied);
  // The URL changes under the page too (back button, the navigation's link): the form follows it.
  useEffect(() => setDraft(filtersOf(props.query)), [key]);
  const trail = useTrail();
  const [, setPrevious] = trail;
  const page = useLoad(async () => {
    const body = await must(
      api.GET('/verifications', {
        params: {
          query: {
            flagged: 'true',
            // An unknown signal in a hand-edited URL lists every flagged scan rather than a 400.
            signal: isSignal(applied.signal) ? applied.signal : undefined,
            tag_id: applied.tag_id || undefined,
            page_size: PAGE_SIZE,
            cursor,
          },
        },
      }),
    );
    const [comments, jumpedFrom] = await Promise.all([commentsOf(api, body.data), jumpOrigins(api, body.data)]);
    return { ...body, comments, jumpedFrom };
  }, [api, key]);
  const apply = (filters: Filters) => {
    setPrevious([]);
    navigate(`/alerts${queryOf({ ...filters })}`);
  };
  return (
    <>
      <h1>Alerts</h1>
      <p class="muted">
        Scans that carry a counterfeit signal, newest first. A signal never changes the verdict: a genuine scan stays genuine, and the signal says what looks
        wrong around it.
      </p>
      <form
        class="filters"
        aria-label="Filter alerts"
        onSubmit={(event) => {
          event.preventDefault();
          apply(draft);
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
          Tag id
          <input
            name="tag_id"
            value={draft.tag_id}
            onInput={(e) => setDraft({ ...draft, tag_id: e.currentTarget.value })}
            placeholder="tag_…"
            spellcheck={false}
          />
        </label>
        <FilterActions
          onClear={() => {
            setDraft(filtersOf(new URLSearchParams()));
            apply(filtersOf(new URLSearchParams()));
          }}
        />
      </form>
      <ErrorLine error={page.error} />
      <Loading loading={page.loading} />
      {page.data && (
        <AlertList label="Alerts" scans={page.data.data} comments={page.data.comments} jumpedFrom={page.data.jumpedFrom} empty="No flagged scans." />
      )}
      <Pager
        label="Alert pages"
        cursor={cursor}
        next={page.data?.links.next}
        trail={trail}
        open={(at) => navigate(`/alerts${queryOf({ ...applied, cursor: at })}`)}
      />
      <ThresholdsForm />
    </>
  );
}
