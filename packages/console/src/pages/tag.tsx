// One tag: its attributes, its chip, writes, product and token, its scans, its signal history (its flagged
// scans), the sessions its scans opened, and deleting it (a configured tag is kept: the contract's 409).
import { ProblemError, must, problemOf, type Verification } from '../api.ts';
import { AlertList } from '../components/alert-list.tsx';
import { ScanTable } from '../components/scan-table.tsx';
import { TagLinks } from '../components/tag-links.tsx';
import { TagWrites } from '../components/tag-writes.tsx';
import { ErrorLine, Head, Facts, Link, Loading, MessageLine, TableRegion, When } from '../components/ui.tsx';
import { useLoad, useWrite } from '../hooks.ts';
import { navigate } from '../router.ts';
import { useSession } from '../session.ts';
import { phoneCanOpen, UNOPENABLE } from '../urls.ts';

/** Sessions shown on a tag's page: those of its last scans. */
const SESSIONS_SHOWN = 10;

export function TagPage(props: { id: string }) {
  const { api, can } = useSession();
  const tag = useLoad(() => must(api.GET('/tags/{id}', { params: { path: { id: props.id } } })), [api, props.id]);
  const scans = useLoad(() => must(api.GET('/verifications', { params: { query: { tag_id: props.id, page_size: 25 } } })), [api, props.id]);
  const flagged = useLoad(() => must(api.GET('/verifications', { params: { query: { tag_id: props.id, flagged: 'true', page_size: 25 } } })), [api, props.id]);
  const a = tag.data?.data.attributes;

  return (
    <>
      <h1>Tag {props.id}</h1>
      <p>
        <Link to="/tags">All tags</Link>
      </p>
      <ErrorLine error={tag.error} />
      <Loading loading={tag.loading} />
      {a && (
        <>
          <section aria-labelledby="attributes-heading">
            <h2 id="attributes-heading">Attributes</h2>
            <Facts
              items={[
                ['Status', a.status],
                ['Protocol', a.protocol],
                [
                  'URL',
                  <>
                    <span class="url">{a.url}</span>
                    {!phoneCanOpen(a.url) && (
                      <span class="warning" role="status">
                        This url is {UNOPENABLE}.
                      </span>
                    )}
                  </>,
                ],
                ['Comment', a.comment],
                ['Session duration', `${a.session_duration} s`],
                ['Configured', <When iso={a.configured_at} />],
                ['Created', <When iso={a.inserted_at} />],
                ['Changed', <When iso={a.updated_at} />],
              ]}
            />
          </section>
          <TagChip id={props.id} />
          <TagWrites tagId={props.id} />
          <TagLinks tagId={props.id} />
          <section aria-labelledby="scans-heading">
            <h2 id="scans-heading">Scans</h2>
            <ErrorLine error={scans.error} />
            {scans.data && <ScanTable label={`Scans of ${props.id}`} scans={scans.data.data} showTag={false} />}
            {scans.data?.links.next && <Link to={`/scans?tag_id=${encodeURIComponent(props.id)}`}>All scans of this tag</Link>}
          </section>
          <section aria-labelledby="signals-heading">
            <h2 id="signals-heading">Signal history</h2>
            <ErrorLine error={flagged.error} />
            {flagged.data && (
              <AlertList label={`Signals of ${props.id}`} scans={flagged.data.data} showTag={false} empty="No signals: no scan of this tag was flagged." />
            )}
            {flagged.data?.links.next && <Link to={`/alerts?tag_id=${encodeURIComponent(props.id)}`}>All alerts of this tag</Link>}
          </section>
          <TagSessions id={props.id} scans={scans.data?.data} />
          {can.write && <DeleteTag id={props.id} status={a.status} />}
        </>
      )}
    </>
  );
}

/** The chip the tag is written onto: 404 while it is not written, which is no error to show. */
function TagChip(props: { id: string }) {
  const { api } = useSession();
  const chip = useLoad(async () => {
    const { data, error, response } = await api.GET('/tags/{id}/chip', { params: { path: { id: props.id } } });
    if (response.status === 404) return null;
    if (!data) throw new ProblemError(problemOf(error, response));
    return data.data.attributes;
  }, [api, props.id]);
  const c = chip.data;
  return (
    <section aria-labelledby="chip-heading">
      <h2 id="chip-heading">Chip</h2>
      <ErrorLine error={chip.error} />
      {chip.data === null && <p class="muted">No chip yet: the tag has not been written.</p>}
      {c && (
        <Facts
          items={[
            ['UID', <code>{c.uid}</code>],
            ['Cryptography', c.crypto.toUpperCase()],
            ['Mirroring', c.mirroring],
            ['Keys', `${c.key_source}, version ${c.key_version}`],
            ['Write generation', c.write_generation],
            ['Last counter', c.last_counter],
            ['Bound', <When iso={c.bound_at} />],
          ]}
        />
      )}
    </section>
  );
}

/** The sessions of the tag's last scans, at most SESSIONS_SHOWN. */
function TagSessions(props: { id: string; scans: Verification[] | undefined }) {
  const { api } = useSession();
  const sessions = useLoad(async () => {
    const ids = [...new Set((props.scans ?? []).map((s) => s.attributes.session_id).filter((id): id is string => id !== null))].slice(0, SESSIONS_SHOWN);
    return Promise.all(ids.map((id) => must(api.GET('/sessions/{id}', { params: { path: { id } } })).then((body) => body.data)));
  }, [api, props.scans]);
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <ErrorLine error={sessions.error} />
      {sessions.data && sessions.data.length === 0 && <p class="muted">No sessions.</p>}
      {sessions.data && sessions.data.length > 0 && (
        <TableRegion label={`Sessions of ${props.id}`}>
          <table>
            <Head columns={['Session', 'Status', 'Opened', 'Expires', 'Scans']} />
            <tbody>
              {sessions.data.map((s) => (
                <tr key={s.id}>
                  <td>{s.id}</td>
                  <td>{s.attributes.status}</td>
                  <td>
                    <When iso={s.attributes.opened_at} />
                  </td>
                  <td>
                    <When iso={s.attributes.expires_at} />
                  </td>
                  <td>{s.attributes.verification_ids.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </section>
  );
}

/** Deleting the tag, which a configured one never is. */
function DeleteTag(props: { id: string; status: string }) {
  const { api } = useSession();
  const deletes = useWrite();
  const remove = async () => {
    if (!confirm(`Delete ${props.id}? This cannot be undone.`)) return;
    await deletes.send(api.DELETE('/tags/{id}', { params: { path: { id: props.id } } }), () => navigate('/tags'));
  };
  return (
    <section aria-labelledby="danger-heading">
      <h2 id="danger-heading">Delete</h2>
      {props.status === 'configured' ? (
        <p class="muted">
          A configured tag cannot be deleted: it is written onto a chip, and the platform keeps it so that the chip's taps are still verified.
        </p>
      ) : (
        <button type="button" class="danger" onClick={() => void remove()}>
          Delete this tag
        </button>
      )}
      <MessageLine message={deletes.message} />
    </section>
  );
}
