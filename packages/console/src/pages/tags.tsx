// Tags: search (comment or exact id), sort, status filter and numbered pages, all kept in the URL;
// every tag the search and filter leave as CSV; create from CSV; delete the selected tags in one request.
import { useState } from 'preact/hooks';
import { must } from '../api.ts';
import { CsvExport } from '../components/csv-export.tsx';
import { TagImport } from '../components/tag-import.tsx';
import { TagList } from '../components/tag-list.tsx';
import { ErrorLine, Loading, MessageLine } from '../components/ui.tsx';
import { useLoad, useWrite } from '../hooks.ts';
import { navigate, queryOf } from '../router.ts';
import { useSession } from '../session.ts';

const PAGE_SIZE = 25;
const SORTS = {
  'updated_at:desc': 'Recently changed',
  'inserted_at:desc': 'Newest',
  'inserted_at:asc': 'Oldest',
  'configured_at:desc': 'Recently configured',
  'comment:asc': 'Comment A–Z',
  'url:asc': 'URL A–Z',
  'id:asc': 'Id',
} as const;
type Sort = keyof typeof SORTS;
type OrderField = 'id' | 'protocol' | 'inserted_at' | 'updated_at' | 'configured_at' | 'comment' | 'url' | 'status';

export function TagsPage(props: { query: URLSearchParams }) {
  const { api, can } = useSession();
  const q = props.query.get('q') ?? '';
  const status = props.query.get('status') ?? '';
  const sort = (props.query.get('sort') ?? 'updated_at:desc') as Sort;
  const page = Math.max(1, Number(props.query.get('page') ?? '1') || 1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const deletes = useWrite();
  const [field, direction] = (sort in SORTS ? sort : 'updated_at:desc').split(':') as [OrderField, 'asc' | 'desc'];
  // What the list and its export share; the export takes no order or page: it is every tag they leave, by id.
  const filters = { q: q || undefined, status: (status || undefined) as 'created' | 'configured' | undefined };
  const list = useLoad(
    () =>
      must(
        api.GET('/tags', {
          params: {
            query: {
              ...filters,
              'order_by[]': [field],
              'order_directions[]': [direction],
              page,
              page_size: PAGE_SIZE,
            },
          },
        }),
      ),
    [api, q, status, field, direction, page],
  );
  const go = (changes: Record<string, string | undefined>) => {
    setSelected(new Set());
    navigate(`/tags${queryOf({ q, status, sort: sort === 'updated_at:desc' ? undefined : sort, page: undefined, ...changes })}`);
  };
  const total = list.data?.meta.total_count ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const rows = list.data?.data ?? [];

  const deleteSelected = async () => {
    const ids = [...selected];
    if (!confirm(`Delete ${ids.length} tag${ids.length === 1 ? '' : 's'}? This cannot be undone.`)) return;
    await deletes.send(api.DELETE('/tags', { body: { data: ids.map((id) => ({ type: 'tags' as const, id })) } as never }), (data) => {
      setSelected(new Set());
      list.reload();
      // The API keeps configured tags: the message says what it did, not what was asked.
      const deleted = data?.meta.deleted.length ?? 0;
      const kept = data?.meta.kept.length ?? 0;
      const tags = (n: number) => `${n} tag${n === 1 ? '' : 's'}`;
      return `Deleted ${tags(deleted)}.${kept > 0 ? ` Kept ${tags(kept)}: a configured tag is never deleted.` : ''}`;
    });
  };

  return (
    <>
      <h1>Tags</h1>
      <TagSearch q={q} status={status} sort={sort} go={go} />
      <ErrorLine error={list.error} />
      <Loading loading={list.loading} />
      {list.data && (
        <>
          <p role="status">
            {total} tag{total === 1 ? '' : 's'}
            {total > 0 && `, page ${page} of ${pages}`}
          </p>
          <CsvExport
            label="Export CSV"
            fallbackName="tags.csv"
            load={() => api.GET('/tags/export', { params: { query: filters }, parseAs: 'blob', headers: { Accept: 'text/csv' } })}
          />
          {rows.length > 0 && <TagList tags={rows} selection={can.write ? { selected, onChange: setSelected } : undefined} />}
          {can.write && (
            <div class="actions">
              <button type="button" class="danger" disabled={selected.size === 0} onClick={() => void deleteSelected()}>
                Delete selected ({selected.size})
              </button>
            </div>
          )}
          <MessageLine message={deletes.message} />
          <nav class="pager" aria-label="Tag pages">
            <button type="button" class="secondary" disabled={page <= 1} onClick={() => go({ page: String(page - 1) })}>
              Previous page
            </button>
            <button type="button" class="secondary" disabled={page >= pages} onClick={() => go({ page: String(page + 1) })}>
              Next page
            </button>
          </nav>
        </>
      )}
      {can.write && <TagImport api={api} onCreated={list.reload} />}
    </>
  );
}

/** The search over comments and ids (applied on submit), and the status filter and order (applied at once). */
function TagSearch(props: { q: string; status: string; sort: Sort; go: (changes: Record<string, string | undefined>) => void }) {
  const { status, sort, go } = props;
  const [search, setSearch] = useState(props.q);
  return (
    <form
      class="filters"
      role="search"
      aria-label="Find tags"
      onSubmit={(event) => {
        event.preventDefault();
        go({ q: search });
      }}
    >
      <label>
        Search
        <input type="search" name="q" value={search} onInput={(e) => setSearch(e.currentTarget.value)} placeholder="comment or tag id" />
      </label>
      <label>
        Status
        <select name="status" value={status} onChange={(e) => go({ status: e.currentTarget.value })}>
          <option value="">Any</option>
          <option value="created">Created (not written)</option>
          <option value="configured">Configured (written)</option>
        </select>
      </label>
      <label>
        Sort
        <select name="sort" value={sort} onChange={(e) => go({ sort: e.currentTarget.value })}>
          {Object.entries(SORTS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <div class="actions">
        <button type="submit">Search</button>
      </div>
    </form>
  );
}
