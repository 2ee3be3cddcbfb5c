// The thresholds that decide the team's signals in this mode (GET and PATCH /teams/current). The server
// checks the values; a refusal names each field, and its line is shown under that field.
import { useState } from 'preact/hooks';
import { must, problemOf, problemsAt, type Thresholds } from '../api.ts';
import { useLoad } from '../hooks.ts';
import { useSession } from '../session.ts';
import { ErrorLine } from './ui.tsx';

const POINTER = '/data/attributes/signal_thresholds';

const FIELDS: { name: keyof Thresholds; label: string; hint: string }[] = [
  { name: 'counter_gap', label: 'Counter gap', hint: 'More unverified reads than this between two genuine scans of a tag make a counter gap.' },
  {
    name: 'country_jump_window',
    label: 'Country jump window (seconds)',
    hint: 'A genuine scan from another country less than this after the previous one is a country jump; 0 turns it off.',
  },
  { name: 'replay_burst', label: 'Replay burst', hint: 'This many refused scans of a tag within an hour make a replay burst.' },
];

type Draft = Record<keyof Thresholds, string>;

const draftOf = (thresholds: Thresholds): Draft => ({
  counter_gap: String(thresholds.counter_gap),
  country_jump_window: String(thresholds.country_jump_window),
  replay_burst: String(thresholds.replay_burst),
});

export function ThresholdsForm() {
  const { api, mode, can } = useSession();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [problems, setProblems] = useState<Record<string, string[]>>({});
  const [saved, setSaved] = useState(false);
  const current = useLoad(
    () =>
      must(api.GET('/teams/current')).then((body) => {
        setDraft(draftOf(body.data.attributes.signal_thresholds));
        return body.data.attributes.signal_thresholds;
      }),
    [api],
  );

  const save = async (values: Draft) => {
    setSaved(false);
    // Whole numbers go as numbers; anything else as typed, for the server to refuse with its own words.
    const thresholds = Object.fromEntries(Object.entries(values).map(([name, text]) => [name, /^-?\d+$/.test(text.trim()) ? Number(text) : text]));
    const { data, error, response } = await api.PATCH('/teams/current', {
      body: { data: { type: 'teams', attributes: { signal_thresholds: thresholds } } } as never,
    });
    if (!data) return setProblems(problemsAt(problemOf(error, response), POINTER));
    setProblems({});
    setDraft(draftOf(data.data.attributes.signal_thresholds));
    setSaved(true);
  };

  const general = problems[''];
  return (
    <section aria-labelledby="thresholds-heading" class="panel">
      <h2 id="thresholds-heading">Thresholds</h2>
      <p class="muted">What counts as suspicious for the team's {mode} scans. A change applies to scans from now on; earlier scans keep their signals.</p>
      <ErrorLine error={current.error} />
      {draft && (
        <form
          aria-label="Signal thresholds"
          onSubmit={(event) => {
            event.preventDefault();
            void save(draft);
          }}
        >
          {FIELDS.map(({ name, label, hint }) => {
            const errors = problems[name];
            return (
              <div key={name}>
                <label for={`threshold-${name}`}>{label}</label>
                <input
                  id={`threshold-${name}`}
                  name={name}
                  inputMode="numeric"
                  readOnly={!can.write}
                  value={draft[name]}
                  onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })}
                  aria-invalid={errors ? 'true' : undefined}
                  aria-describedby={`threshold-${name}-hint${errors ? ` threshold-${name}-error` : ''}`}
                />
                <p class="hint muted" id={`threshold-${name}-hint`}>
                  {hint}
                </p>
                {errors && (
                  <p class="error" id={`threshold-${name}-error`}>
                    {errors.join(' ')}
                  </p>
                )}
              </div>
            );
          })}
          {can.write ? (
            <div class="actions">
              <button type="submit">Save thresholds</button>
            </div>
          ) : (
            <p class="muted">A read key shows the thresholds; a write or admin key changes them.</p>
          )}
          {general && (
            <p class="error" role="alert">
              {general.join(' ')}
            </p>
          )}
          {Object.keys(problems).length > 0 && !general && (
            <p class="error" role="alert">
              The thresholds were refused: see the fields marked above.
            </p>
          )}
          {saved && (
            <p class="success" role="status">
              Saved the thresholds.
            </p>
          )}
        </form>
      )}
    </section>
  );
}
