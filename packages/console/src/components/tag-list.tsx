// A page of tags: a table on a wide screen; on a phone a card per tag, since six columns squeezed into
// 375 px cut the url and make every row several lines tall.
import type { Tag } from '../api.ts';
import { useMedia } from '../hooks.ts';
import { Head, Link, TableRegion, When } from './ui.tsx';

/** The width below which the console stacks (style.css uses the same). */
const NARROW = '(max-width: 40rem)';

interface Selection {
  selected: Set<string>;
  onChange: (selected: Set<string>) => void;
}

function SelectBox(props: { id: string; selection: Selection }) {
  const { selected, onChange } = props.selection;
  return (
    <input
      type="checkbox"
      aria-label={`Select ${props.id}`}
      checked={selected.has(props.id)}
      onChange={(e) => {
        const next = new Set(selected);
        if (e.currentTarget.checked) next.add(props.id);
        else next.delete(props.id);
        onChange(next);
      }}
    />
  );
}

/** The tags of a page; `selection` (keys that can delete) adds a checkbox to each. */
export function TagList(props: { tags: Tag[]; selection?: Selection }) {
  const narrow = useMedia(NARROW);
  const { tags, selection } = props;
  if (narrow)
    return (
      <ul class="cards" aria-label="Tags">
        {tags.map((tag) => (
          <li key={tag.id} class="card">
            <div class="card-head">
              {selection && <SelectBox id={tag.id} selection={selection} />}
              <Link to={`/tags/${tag.id}`}>{tag.id}</Link>
            </div>
            <dl class="facts">
              <div>
                <dt>Status</dt>
                <dd>{tag.attributes.status}</dd>
              </div>
              <div>
                <dt>URL</dt>
                <dd class="url">{tag.attributes.url}</dd>
              </div>
              {tag.attributes.comment && (
                <div>
                  <dt>Comment</dt>
                  <dd>{tag.attributes.comment}</dd>
                </div>
              )}
              <div>
                <dt>Changed</dt>
                <dd>
                  <When iso={tag.attributes.updated_at} />
                </dd>
              </div>
            </dl>
          </li>
        ))}
      </ul>
    );
  return (
    <TableRegion label="Tags">
      <table>
        <Head columns={[selection ? { hidden: 'Selected' } : false, 'Tag', 'Status', 'Comment', 'URL', 'Changed']} />
        <tbody>
          {tags.map((tag) => (
            <tr key={tag.id}>
              {selection && (
                <td>
                  <SelectBox id={tag.id} selection={selection} />
                </td>
              )}
              <td>
                <Link to={`/tags/${tag.id}`}>{tag.id}</Link>
              </td>
              <td>{tag.attributes.status}</td>
              <td>{tag.attributes.comment ?? ''}</td>
              <td class="url">{tag.attributes.url}</td>
              <td>
                <When iso={tag.attributes.updated_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}
