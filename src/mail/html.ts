// The one way a mail's HTML is written: every value escaped, one plain layout (no images, no remote
// content, which mail clients block and which would tell a sender when a mail was read).
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A mail's HTML: `body` is already HTML, built with escapeHtml. */
export function mailHtml(title: string, body: string): string {
  return [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; max-width: 40em">',
    body,
    '<p style="color: #555; font-size: 0.9em">Sent by tapproof. Choose what you are emailed on your profile in the console.</p>',
    '</body></html>',
  ].join('\n');
}
