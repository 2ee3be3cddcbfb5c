// Overview: over a window kept in the URL (today, 7, 30 or 90 days, or chosen dates; 30 days unless
// chosen), scans per day by outcome (chart and table), by signal, by country (a map of scans and flagged
// scans, with its table), totals (the flagged ones linking to Alerts); and the last scans, polled,
// whatever the window.
import { useMemo } from 'preact/hooks';
import { must, type Stats } from '../api.ts';
import { DailyChart } from '../components/chart.tsx';
import { ScanTable } from '../components/scan-table.tsx';
import { ErrorLine, Head, Link, Loading, TableRegion } from '../components/ui.tsx';
import { WindowPicker } from '../components/window-picker.tsx';
import { WorldMap, type CountryCount } from '../components/world-map.tsx';
import { useLoad } from '../hooks.ts';
import { REASONS, REASON_COLORS, REASON_LABELS } from '../reasons.ts';
import { useSession } from '../session.ts';
import { SIGNALS, SIGNAL_LABELS } from '../signals.ts';
import { statsQuery, windowOf, windowTitle } from '../stats-window.ts';
import { commentsOf } from '../tag-comments.ts';

/** The statistics' countries as the map takes them: by code, and the scans of no known country apart. */
function countsOf(byCountry: Stats['totals']['by_country']) {
  const counts: Record<string, CountryCount> = {};
  let unknown: CountryCount | undefined;
  for (const c of byCountry) {
    if (c.country === null) unknown = { scans: c.count, flagged: c.flagged };
    else counts[c.country] = { scans: c.count, flagged: c.flagged };
  }
  return { counts, unknown, rows: byCountry.length };
}

/** How often the last scans are read again. */
export const LIVE_POLL_MS = 5000;

export function Overview(props: { query: URLSearchParams }) {
  const { api } = useSession();
  const chosen = windowOf(props.query);
  const { since, until } = statsQuery(chosen);
  const stats = useLoad(() => must(api.GET('/verifications/stats', { params: { query: { since, until } } })).then((body) => body.meta), [api, since, until]);
  // Open cases whatever the window: what is waiting for someone now.
  const openCases = useLoad(() => must(api.GET('/cases', { params: { query: { state: 'open', page_size: 1 } } })).then((body) => body.meta.counts.open), [api]);
  const live = useLoad(
    async () => {
      const body = await must(api.GET('/verifications', { params: { query: { page_size: 10 } } }));
      return { scans: body.data, comments: await commentsOf(api, body.data) };
    },
    [api],
    LIVE_POLL_MS,
  );
  const meta = stats.data;
  const series = useMemo(
    () =>
      meta ? REASONS.map((reason) => ({ label: REASON_LABELS[reason], color: REASON_COLORS[reason], values: meta.days.map((d) => d.by_reason[reason]) })) : [],
    [meta],
  );
  const days = useMemo(() => meta?.days.map((d) => d.day) ?? [], [meta]);
  const genuine = meta?.totals.by_reason.ok ?? 0;
  const countries = useMemo(() => countsOf(meta?.totals.by_country ?? []), [meta]);
  return (
    <>
      <h1>Overview</h1>
      <WindowPicker chosen={chosen} />
      <ErrorLine error={stats.error} />
      <Loading loading={stats.loading && !meta} />
      {meta && (
        <>
          <section aria-labelledby="totals-heading">
            <h2 id="totals-heading">{windowTitle(chosen, meta)}</h2>
            <ul class="totals">
              <li>
                <strong>{meta.totals.count}</strong> scans
              </li>
              <li>
                <strong>{genuine}</strong> genuine
              </li>
              <li>
                <strong>{meta.totals.count - genuine}</strong> not genuine
              </li>
              <li>
                <Link to="/alerts" class={meta.totals.flagged > 0 ? 'flagged' : undefined}>
                  <strong>{meta.totals.flagged}</strong> flagged scans
                </Link>
              </li>
              {openCases.data !== undefined && openCases.data !== null && (
                <li>
                  <Link to="/cases" class={openCases.data > 0 ? 'flagged' : undefined}>
                    <strong>{openCases.data}</strong> {openCases.data === 1 ? 'open case' : 'open cases'}
                  </Link>
                </li>
              )}
            </ul>
          </section>
          <section aria-labelledby="daily-heading">
            <h2 id="daily-heading">Scans per day by outcome</h2>
            <DailyChart
              days={days}
              series={series}
              label={`Scans per day by outcome from ${meta.since} to ${meta.until}; the numbers are in the table below`}
            />
            <details>
              <summary>Scans per day as a table</summary>
              <TableRegion label="Scans per day">
                <table>
                  <Head columns={['Day', 'All', ...REASONS.map((r) => REASON_LABELS[r]), 'Flagged']} />
                  <tbody>
                    {meta.days.map((day) => (
                      <tr key={day.day}>
                        <th scope="row">{day.day}</th>
                        <td>{day.count}</td>
                        {REASONS.map((r) => (
                          <td key={r}>{day.by_reason[r]}</td>
                        ))}
                        <td>{day.flagged}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableRegion>
            </details>
          </section>
          <div class="columns">
            <section aria-labelledby="outcome-heading">
              <h2 id="outcome-heading">By outcome</h2>
              <TableRegion label="Scans by outcome">
                <table>
                  <tbody>
                    {REASONS.map((r) => (
                      <tr key={r}>
                        <th scope="row">{REASON_LABELS[r]}</th>
                        <td>{meta.totals.by_reason[r]}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableRegion>
            </section>
            <section aria-labelledby="signal-heading">
              <h2 id="signal-heading">By signal</h2>
              <TableRegion label="Scans by signal">
                <table>
                  <tbody>
                    {SIGNALS.map((signal) => (
                      <tr key={signal}>
                        <th scope="row">
                          <Link to={`/alerts?signal=${signal}`}>{SIGNAL_LABELS[signal]}</Link>
                        </th>
                        <td>{meta.totals.by_signal[signal]}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableRegion>
            </section>
          </div>
          <section aria-labelledby="country-heading">
            <h2 id="country-heading">By country</h2>
            {countries.rows === 0 ? (
              <p class="muted">No scans in this window.</p>
            ) : (
              <WorldMap label="Scans by country" counts={countries.counts} unknown={countries.unknown} />
            )}
          </section>
        </>
      )}
      <section aria-labelledby="live-heading">
        <h2 id="live-heading">Last scans</h2>
        <p class="muted">Read again every {LIVE_POLL_MS / 1000} seconds.</p>
        <ErrorLine error={live.error} />
        {live.data && <ScanTable label="Last scans" scans={live.data.scans} comments={live.data.comments} />}
      </section>
    </>
  );
}
