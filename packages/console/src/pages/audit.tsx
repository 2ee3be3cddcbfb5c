// Audit: who changed what in this world, newest first — each change with its actor (a key, a person, the
// CLI, the platform's own jobs), the resource it touched and the fields it set. Narrowed to one operation,
// one actor or one resource, all kept in the URL; keyset pages like Scans. Admins only, as the API is.
import { must } from '../api.ts';
import { FilterForm, useListFilters, type FilterField } from '../components/filter-form.tsx';
import { Pager } from '../components/pager.tsx';
import { ErrorLine, Head, Link, Loading, TableRegion, When } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import { OPERATIONS, isOperation } from '../audit-operations.ts';

const PAGE_SIZE = 50;

const FIELDS: readonly FilterField<'operation' | 'actor' | 'resource'>[] = [
  { name: 'operation', label: 'Operation', any: 'Any operation', choices: OPERATIONS.map((operation) => ({ value: operation, label: operation })) },
  { name: 'actor', label: 'Actor', placeholder: 'key_… or user@host' },
  { name: 'resource', label: 'Resource', placeholder: 'tag_…, whk_…, key_…' },
];

/** A resource the console has a page for links to it (tags and webhooks); the others are named. */
function Resource(props: { type: string; id: string | null }) {
  const { id } = props;
  if (id === null) return <span class="muted">—</span>;
  if (id.startsWith('tag_')) return <Link to={`/tags/${id}`}>{id}</Link>;
  if (id.startsWith('whk_')) return <Link to={`/webhooks/${id}`}>{id}</Link>;
  return <span>{id}</span>;
}

const ACTOR_LABELS: Record<string, string> = { key: 'key', user: 'user', cli: 'CLI', system: 'platform' };

// The audit log records instants as the database keeps them, integer microseconds since the epoch
// (docs/audit.md); a person reads them as ISO times.
const isTime = (field: string, value: unknown): value is number => field.endsWith('_at') && Number.isSafeInteger(value);
const instant = (microseconds: number) => new Date(Math.floor(microseconds / 1000)).toISOString();

/** A change's fields, one per line: `field: from → to` for an update, `field: value` otherwise. */
function Changes(props: { changes: Record<string, unknown> | null }) {
  const entries = Object.entries(props.changes ?? {});
  if (entries.length === 0) return <span class="muted">—</span>;
  const show = (field: string, value: unknown) =>
    value === null ? 'none' : typeof value === 'string' ? value : isTime(field, value) ? instant(value) : JSON.stringify(value);
  return (
    <ul class="changes">
      {entries.map(([field, value]) => {
        const update = typeof value === 'object' && value !== null && 'from' in value && 'to' in value;
        return (
          <li key={field}>
            <code>{field}</code>:{' '}
            {update ? `${show(field, (value as { from: unknown }).from)} → ${show(field, (value as { to: unknown }).to)}` : show(field, value)}
          </li>
        );
      })}
    </ul>
  );
}

export function AuditPage(props: { query: URLSearchParams }) {
  const { can, user } = useSession();
  // Opened by address by a role the API refuses: say who may read it rather than a form over a 403.
  if (!can.admin)
    return (
      <>
        <h1>Audit</h1>
        <p>
          {user
            ? 'The audit log is shown to admins only: ask an admin of your team.'
            : 'The audit log is shown to admin keys only: sign in with one to read it.'}
        </p>
      </>
    );
  return <AuditLog query={props.query} />;
}

function AuditLog(props: { query: URLSearchParams }) {
  const { api } = useSession();
  const filters = useListFilters('/audit', FIELDS, props.query);
  const { applied, cursor, key } = filters;
  const page = useLoad(
    () =>
      must(
        api.GET('/audit-events', {
          params: {
            query: {
              operation: isOperation(applied.operation) ? applied.operation : undefined,
              actor: applied.actor.trim() || undefined,
              resource: applied.resource.trim() || undefined,
              page_size: PAGE_SIZE,
              cursor,
            },
          },
        }),
      ),
    [api, key],
  );
  const events = page.data?.data;
  return (
    <>
      <h1>Audit</h1>
      <p class="muted">Every change to this team and mode — through the API, the console or the CLI — newest first, with who made it and from where.</p>
      <FilterForm label="Filter audit events" fields={FIELDS} filters={filters} />
      <ErrorLine error={page.error} />
      <Loading loading={page.loading} />
      {events && events.length === 0 && <p>No changes recorded{key ? ' that match these filters' : ''}.</p>}
      {events && events.length > 0 && (
        <TableRegion label="Audit events">
          <table>
            <Head columns={['When', 'Who', 'Operation', 'Resource', 'Changes', 'From']} />
            <tbody>
              {events.map((e) => (
                <tr key={e.id}>
                  <td>
                    <When iso={e.attributes.occurred_at} />
                  </td>
                  <td>
                    {ACTOR_LABELS[e.attributes.actor.type] ?? e.attributes.actor.type} {e.attributes.actor.id}
                  </td>
                  <td>
                    <code>{e.attributes.operation}</code>
                  </td>
                  <td>
                    <Resource type={e.attributes.resource.type} id={e.attributes.resource.id} />
                  </td>
                  <td>
                    <Changes changes={e.attributes.changes as Record<string, unknown> | null} />
                  </td>
                  <td>{e.attributes.address ?? <span class="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <Pager label="Audit pages" cursor={cursor} next={page.data?.links.next} trail={filters.trail} open={filters.open} />
    </>
  );
}
