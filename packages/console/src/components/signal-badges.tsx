// Signals on screen: a badge per signal, named for screen readers ("Signal: Counter gap", where the bare
// text would read as a stray phrase in a table cell), and the notes that say what each means and what to do.
import { SIGNAL_ACTIONS, SIGNAL_LABELS, SIGNAL_MEANINGS, type Signal } from '../signals.ts';

export function SignalBadge(props: { signal: Signal }) {
  const label = SIGNAL_LABELS[props.signal];
  return (
    <span class="badge warn" role="img" aria-label={`Signal: ${label}`} title={SIGNAL_MEANINGS[props.signal]}>
      {label}
    </span>
  );
}

/** A scan's signals side by side; a dash when it has none. */
export function SignalBadges(props: { signals: readonly Signal[] }) {
  if (props.signals.length === 0) return <>—</>;
  return (
    <span class="signals">
      {props.signals.map((signal) => (
        <SignalBadge key={signal} signal={signal} />
      ))}
    </span>
  );
}

/** Each signal with one line on what it means and what to do about it. */
export function SignalNotes(props: { signals: readonly Signal[] }) {
  if (props.signals.length === 0) return <>none</>;
  return (
    <ul class="signal-notes">
      {props.signals.map((signal) => (
        <li key={signal}>
          <SignalBadge signal={signal} /> {SIGNAL_MEANINGS[signal]} <strong>What to do:</strong> {SIGNAL_ACTIONS[signal]}
        </li>
      ))}
    </ul>
  );
}
