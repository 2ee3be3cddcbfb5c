// The Overview's window: a link per preset (a link, since choosing one opens another URL, and can be
// opened in a new tab), and a form for dates chosen by hand. The chosen preset is marked aria-current.
import { useState } from 'preact/hooks';
import { navigate, queryOf } from '../router.ts';
import { PRESETS, PRESET_LABELS, type StatsWindow } from '../stats-window.ts';
import { Link } from './ui.tsx';

export function WindowPicker(props: { chosen: StatsWindow }) {
  const { chosen } = props;
  return (
    <div class="window-picker">
      <nav aria-label="Window">
        <ul>
          {PRESETS.map((days) => (
            <li key={days}>
              <Link to={`/${queryOf({ days: String(days) })}`} aria-current={chosen.kind === 'preset' && chosen.days === days ? 'true' : undefined}>
                {PRESET_LABELS[days]}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {/* Keyed by the window, so that the fields start again from the one shown after each change. */}
      <CustomWindow key={`${chosen.since}/${chosen.until}`} chosen={chosen} />
    </div>
  );
}

function CustomWindow(props: { chosen: StatsWindow }) {
  const [since, setSince] = useState(props.chosen.since);
  const [until, setUntil] = useState(props.chosen.until);
  return (
    <form
      class="filters"
      aria-label="Custom window"
      onSubmit={(event) => {
        event.preventDefault();
        navigate(`/${queryOf({ since, until })}`);
      }}
    >
      <label>
        From
        <input name="since" type="date" required value={since} onInput={(event) => setSince(event.currentTarget.value)} />
      </label>
      <label>
        To
        <input name="until" type="date" required value={until} onInput={(event) => setUntil(event.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="submit">Show these days</button>
      </div>
    </form>
  );
}
