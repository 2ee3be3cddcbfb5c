// Alerts: the flagged scans (those carrying a counterfeit signal), newest first, each signal with what it
// means and what to do; narrowed to one signal or one tag, both kept in the URL; keyset pages like Scans.
// Below them, the team's thresholds that decide the signals.
import { must } from '../api.ts';
import { AlertList, jumpOrigins } from '../components/alert-list.tsx';
import { FilterForm, useListFilters, type FilterField } from '../components/filter-form.tsx';
import { Pager } from '../components/pager.tsx';
import { ThresholdsForm } from '../components/thresholds-form.tsx';
import { ErrorLine, Loading } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import { isSignal, SIGNALS, SIGNAL_LABELS } from '../signals.ts';
import { commentsOf } from '../tag-comments.ts';

const PAGE_SIZE = 25;

const FIELDS: readonly FilterField<'signal' | 'tag_id'>[] = [
  { name: 'signal', label: 'Signal', any: 'Any signal', choices: SIGNALS.map((signal) => ({ value: signal, label: SIGNAL_LABELS[signal] })) },
  { name: 'tag_id', label: 'Tag id', placeholder: 'tag_…' },
];

export function AlertsPage(props: { query: URLSearchParams }) {
  const { api } = useSession();
  const filters = useListFilters('/alerts', FIELDS, props.query);
  const { applied, cursor } = filters;
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
  }, [api, filters.key]);
  return (
    <>
      <h1>Alerts</h1>
      <p class="muted">
        Scans that carry a counterfeit signal, newest first. A signal never changes the verdict: a genuine scan stays genuine, and the signal says what looks
        wrong around it.
      </p>
      <FilterForm label="Filter alerts" fields={FIELDS} filters={filters} />
      <ErrorLine error={page.error} />
      <Loading loading={page.loading} />
      {page.data && (
        <AlertList label="Alerts" scans={page.data.data} comments={page.data.comments} jumpedFrom={page.data.jumpedFrom} empty="No flagged scans." />
      )}
      <Pager label="Alert pages" cursor={cursor} next={page.data?.links.next} trail={filters.trail} open={filters.open} />
      <ThresholdsForm />
    </>
  );
}
