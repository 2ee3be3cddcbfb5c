// A brand's landing server: the tag's URL opens here, the tap is verified server-side with the brand's
// key, and the page shows the verdict with <tapproof-verification> (@tapproof/landing, served from here).
// Run: TAPPROOF_URL=https://tapproof.example TAPPROOF_KEY=tp_live_… PORT=8080 node examples/landing/server.js
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { Tapproof, TapproofError } from '@tapproof/sdk';

const { TAPPROOF_URL, TAPPROOF_KEY, PORT = '8080', HOST = '127.0.0.1', PUBLIC_ORIGIN } = process.env;
if (!TAPPROOF_URL || !TAPPROOF_KEY) throw new Error('set TAPPROOF_URL and TAPPROOF_KEY');
const tapproof = new Tapproof({ baseUrl: TAPPROOF_URL, key: TAPPROOF_KEY });
// A sandbox key's taps are shown by the sandbox base only (docs/extension.md, "Base URLs").
const extApi = `${new URL(TAPPROOF_URL).origin}/ext${TAPPROOF_KEY.startsWith('tp_sandbox_') ? '/sandbox' : ''}`;
const require = createRequire(import.meta.url);
// Everything the page loads comes from this server: the element, its stylesheet and the page's own.
const assets = {
  '/tapproof-landing.js': ['text/javascript', readFileSync(require.resolve('@tapproof/landing/bundle'))],
  '/tapproof-landing.css': ['text/css', readFileSync(require.resolve('@tapproof/landing/style.css'))],
  '/page.css': ['text/css', readFileSync(new URL('page.css', import.meta.url))],
};
const attr = (s) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (verificationId, resourceUrl, signals) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Check your item</title><link rel="stylesheet" href="/page.css"><link rel="stylesheet" href="/tapproof-landing.css">
<script type="module" src="/tapproof-landing.js"></script></head>
<body><main><h1>Check your item</h1>
<tapproof-verification api="${attr(extApi)}" verification-id="${attr(verificationId)}" resource-url="${attr(resourceUrl)}"
  signals="${attr(signals.join(' '))}" seal-notice></tapproof-verification>
</main></body></html>`;

createServer(async (req, res) => {
  const asset = assets[req.url];
  if (asset) return res.writeHead(200, { 'content-type': asset[0] }).end(asset[1]);
  if (req.method !== 'GET' || req.url === '/favicon.ico') return res.writeHead(404).end();
  // The URL the chip wrote, as the phone opened it: its query is the tap's SUN message.
  let url;
  try {
    url = new URL((PUBLIC_ORIGIN ?? `http://${req.headers.host}`) + req.url);
  } catch {
    return res.writeHead(400).end(); // a Host header that is no host
  }
  let verificationId = ''; // none: the page says "Not genuine"
  let signals = []; // the extension API does not show them: an opened seal is told only through these
  try {
    const { attributes } = await tapproof.verifications.verify(url.href, { clientIp: req.socket.remoteAddress });
    if (attributes.genuine) [verificationId, signals] = [attributes.verification_id, attributes.signals];
  } catch (error) {
    // A 4xx is a URL that is no tag's tap; anything else means the check could not be made.
    if (!(error instanceof TapproofError && error.status >= 400 && error.status < 500)) {
      return res.writeHead(503, { 'content-type': 'text/plain' }).end('The item cannot be checked right now.');
    }
  }
  const csp = `default-src 'self'; connect-src ${new URL(extApi).origin}; img-src https:`;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp });
  res.end(page(verificationId, url.origin + url.pathname, signals));
}).listen(Number(PORT), HOST, function () {
  console.log(`landing on http://${HOST}:${this.address().port}`);
});
