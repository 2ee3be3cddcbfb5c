// Mail's front door (docs/email.md): what other features use to queue a mail and to write one.
// Other features import this feature only through this file (test/house/layers.unit.test.ts).
export { queueCaseOpened, queueLink } from './queue.js';
export { escapeHtml, mailHtml } from './html.js';
export { digestWindow, type Mail, type MailRenderers, type RenderMail } from './delivery.js';
export type { MailRow, SettingsRow } from './repository.js';
