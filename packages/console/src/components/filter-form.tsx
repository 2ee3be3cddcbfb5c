// The filters of a keyset list (Alerts, Audit): kept in the URL, so a filtered list can be linked to and
// reloaded; a draft the form edits until it is applied; and the trail of pages seen, which starts again
// when the filters change.
import { useEffect, useState } from 'preact/hooks';
import { navigate, queryOf } from '../router.ts';
import { useTrail } from './pager.tsx';
import { FilterActions } from './ui.tsx';

/** A field of the form: a choice of values (or `any`, none), or a text such as an id. */
export type FilterField<N extends string> =
  { name: N; label: string; any: string; choices: readonly { value: string; label: string }[] } | { name: N; label: string; placeholder: string };

export interface ListFilters<N extends string> {
  /** The filters of the URL, each '' when not given. */
  applied: Record<N, string>;
  cursor: string | undefined;
  /** The whole query as text: what the list's load depends on. */
  key: string;
  trail: ReturnType<typeof useTrail>;
  /** Opens the page at `cursor`, under the same filters. */
  open: (cursor: string | undefined) => void;
  /** Opens the first page under `filters`. */
  apply: (filters: Record<N, string>) => void;
}

const filtersOf = <N extends string>(names: readonly N[], query: URLSearchParams) =>
  Object.fromEntries(names.map((name) => [name, query.get(name) ?? ''])) as Record<N, string>;

/** The filters of the list at `path`, its form's `fields`, as its URL's `query` gives them. */
export function useListFilters<N extends string>(path: string, fields: readonly FilterField<N>[], query: URLSearchParams): ListFilters<N> {
  const trail = useTrail();
  const applied = filtersOf(
    fields.map((field) => field.name),
    query,
  );
  return {
    applied,
    cursor: query.get('cursor') ?? undefined,
    key: query.toString(),
    trail,
    open: (at) => navigate(`${path}${queryOf({ ...applied, cursor: at })}`),
    apply: (filters) => {
      trail[1]([]);
      navigate(`${path}${queryOf({ ...filters })}`);
    },
  };
}

export function FilterForm<N extends string>(props: { label: string; fields: readonly FilterField<N>[]; filters: ListFilters<N> }) {
  const { filters } = props;
  const [draft, setDraft] = useState(filters.applied);
  // The URL changes under the page too (back button, the navigation's link): the form follows it.
  useEffect(() => setDraft(filters.applied), [filters.key]);
  const set = (name: N) => (event: Event) => setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  const none = filtersOf(
    props.fields.map((field) => field.name),
    new URLSearchParams(),
  );
  return (
    <form
      class="filters"
      aria-label={props.label}
      onSubmit={(event) => {
        event.preventDefault();
        filters.apply(draft);
      }}
    >
      {props.fields.map((field) => (
        <label key={field.name}>
          {field.label}
          {'choices' in field ? (
            <select name={field.name} value={draft[field.name]} onChange={set(field.name)}>
              <option value="">{field.any}</option>
              {field.choices.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>
          ) : (
            <input name={field.name} value={draft[field.name]} onInput={set(field.name)} placeholder={field.placeholder} spellcheck={false} />
          )}
        </label>
      ))}
      <FilterActions
        onClear={() => {
          setDraft(none);
          filters.apply(none);
        }}
      />
    </form>
  );
}
