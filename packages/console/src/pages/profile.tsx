// Profile: what the signed-in person is emailed (docs/email.md). Theirs alone; a key has none. On a server
// without SMTP the page says that email is off and why, and offers nothing to turn on.
import { useEffect, useState } from 'preact/hooks';
import { must } from '../api.ts';
import { ErrorLine, Loading, MessageLine } from '../components/ui.tsx';
import { useLoad, useWrite } from '../hooks.ts';
import { useSession } from '../session.ts';

type Choices = { case_opened: boolean; daily_digest: boolean; sandbox: boolean };

export function ProfilePage() {
  const { api, user } = useSession();
  const settings = useLoad(() => (user ? must(api.GET('/profile/notifications')) : Promise.resolve(null)), [api, user]);
  const [choices, setChoices] = useState<Choices | null>(null);
  const writes = useWrite();
  const attributes = settings.data?.data.attributes;
  useEffect(() => {
    if (attributes) setChoices({ case_opened: attributes.case_opened, daily_digest: attributes.daily_digest, sandbox: attributes.sandbox });
  }, [attributes]);

  if (!user)
    return (
      <>
        <h1>Profile</h1>
        <p>You are signed in with an API key, which is nobody: notification settings belong to a person signed in to the console.</p>
      </>
    );
  const off = attributes?.email_off ?? null;
  const save = async (next: Choices) => {
    await writes.send(api.PATCH('/profile/notifications', { body: { data: { type: 'notification-settings', attributes: next } } }), (data) => {
      const a = data.data.attributes;
      setChoices({ case_opened: a.case_opened, daily_digest: a.daily_digest, sandbox: a.sandbox });
      return 'Saved.';
    });
  };
  const box = (name: keyof Choices, label: string, disabled: boolean) => (
    <label class="check">
      <input
        type="checkbox"
        checked={choices?.[name] ?? false}
        disabled={disabled}
        onChange={(e) => choices && setChoices({ ...choices, [name]: e.currentTarget.checked })}
      />
      {label}
    </label>
  );
  return (
    <>
      <h1>Profile</h1>
      <p class="muted">
        Signed in as {user.email} ({user.role}).
      </p>
      <ErrorLine error={settings.error} />
      <Loading loading={settings.loading} />
      {attributes && choices && (
        <section aria-labelledby="mail-heading" class="panel">
          <h2 id="mail-heading">Email notifications</h2>
          {off ? (
            <p role="status">Notifications are off: {off}.</p>
          ) : (
            <p class="muted">Mail goes to {user.email}. Each links to the case in this console.</p>
          )}
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void save(choices);
            }}
          >
            <fieldset>
              <legend>Email me</legend>
              {box('case_opened', 'when a case opens', off !== null)}
              {box('daily_digest', `a daily digest of cases${attributes.digest_hour === null ? '' : ` (at ${String(attributes.digest_hour).padStart(2, '0')}:00 UTC)`}`, off !== null)}
              {box('sandbox', "about the sandbox's cases too, not only production's", false)}
            </fieldset>
            <div class="actions">
              <button type="submit">Save</button>
            </div>
          </form>
          <MessageLine message={writes.message} />
        </section>
      )}
    </>
  );
}
