// <tapproof-verification verification-id="VRF_…" api="https://tapproof.example/ext/sandbox">: the verdict
// of a tap, the item's product, token, seal and owner, the page's claims, and two actions: claim the item
// on this page, prove ownership with the wallet present. With `seal-notice`, a notice that the item's seal
// has been opened when the `signals` the brand's server passes say so. Light DOM (the brand's CSS applies),
// built with text nodes only: nothing the API returns is parsed as HTML.
import { ExtensionClient, ExtensionError, type ExtVerification, type Ownership } from './api.js';
import { TEXT, refusalText, sealText, timeText, tokenText, walletHint } from './messages.js';
import { findProver } from './wallets/index.js';

type Child = Node | string | null | undefined | false;

/** An element with attributes (`on…` functions become listeners) and children. */
function h(tag: string, attributes: Record<string, string | EventListener> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value);
  }
  element.append(...(children.filter(Boolean) as (Node | string)[]));
  return element;
}

/** The counterfeit signals of a genuine tap of a TagTamper chip whose loop has been seen open (docs/signals.md). */
const SEAL_SIGNALS = ['tamper_opened', 'tamper_open'];

let ids = 0;
const uniqueId = () => `tapproof-${++ids}`;

export class TapproofVerification extends HTMLElement {
  static observedAttributes = ['verification-id', 'api', 'resource-url', 'wallet', 'signals', 'seal-notice'];
  private loads = 0;
  private scheduled = false;
  private status = h('p', { role: 'status' });
  private alert = h('p', { role: 'alert' });
  private owner = h('dd');
  private claimList = h('ul');
  private claimForm = h('form');
  private proveButton = h('button') as HTMLButtonElement;
  private proveParagraph = h('p');
  private walletHint = h('span');

  connectedCallback() {
    this.schedule();
  }

  attributeChangedCallback() {
    if (this.isConnected) this.schedule();
  }

  /** The page whose claims are listed and made: `resource-url`, else this page without its query (the tap's SUN message). */
  get resourceUrl(): string {
    return this.getAttribute('resource-url') || location.origin + location.pathname;
  }

  /**
   * Whether to say that the item's seal has been opened: the page asked for it (`seal-notice`) and the
   * platform's verification of this tap carries tamper_opened or tamper_open (`signals`, as the brand's
   * server got them: separated by spaces or commas).
   */
  get sealNotice(): boolean {
    const signals = (this.getAttribute('signals') ?? '').split(/[\s,]+/);
    return this.hasAttribute('seal-notice') && SEAL_SIGNALS.some((signal) => signals.includes(signal));
  }

  private get client() {
    return new ExtensionClient(this.getAttribute('api') ?? '');
  }

  // Attributes set one after another (or while parsing) load once.
  private schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      void this.load();
    });
  }

  private async load() {
    const load = ++this.loads;
    const id = this.getAttribute('verification-id');
    this.replaceChildren(h('p', { role: 'status' }, TEXT.checking));
    let verification: ExtVerification | null = null;
    if (id) {
      try {
        verification = await this.client.lookup(id);
      } catch (error) {
        // 404 is the API's answer for a replayed or forged scan as for an unknown one; 400 for an id that is not VRF_….
        if (!(error instanceof ExtensionError && (error.status === 404 || error.status === 400))) {
          if (load === this.loads) this.replaceChildren(h('p', { role: 'alert' }, TEXT.unavailable));
          return;
        }
      }
    }
    if (load !== this.loads) return;
    if (!verification) {
      this.replaceChildren(this.section(TEXT.notGenuine, TEXT.notGenuineDetail));
      return;
    }
    this.replaceChildren(this.genuine(verification));
    await this.refreshClaims(verification);
  }

  private section(title: string, detail: string, ...children: Child[]) {
    const heading = uniqueId();
    return h('section', { 'aria-labelledby': heading }, h('h2', { id: heading }, title), h('p', {}, detail), ...children);
  }

  private genuine(v: ExtVerification) {
    const row = (term: string, detail: Child) => [h('dt', {}, term), h('dd', {}, detail)];
    const image = v.product?.image_url;
    this.owner = h('dd');
    this.showOwner(v.ownership);
    this.status = h('p', { role: 'status', tabindex: '-1' });
    this.alert = h('p', { role: 'alert' });
    this.claimList = h('ul');
    const note = uniqueId();
    const input = h('input', { id: note, name: 'note', maxlength: '280' }) as HTMLInputElement;
    this.claimForm = h(
      'form',
      { 'aria-label': TEXT.claim, onsubmit: (event) => (event.preventDefault(), void this.claim(v, input.value.trim())) },
      h('label', { for: note }, TEXT.claimNote),
      ' ',
      input,
      ' ',
      h('button', { type: 'submit' }, TEXT.claim),
    );
    const notice = uniqueId();
    return this.section(
      TEXT.genuine,
      TEXT.genuineDetail,
      this.sealNotice && h('p', { role: 'note', 'aria-labelledby': notice }, h('strong', { id: notice }, TEXT.sealOpened), ' ', TEXT.sealOpenedDetail),
      image && /^https?:\/\//.test(image) && h('img', { src: image, alt: v.product!.name }),
      h(
        'dl',
        {},
        ...(v.product ? row('Product', v.product.name) : []),
        ...(v.product?.description ? row('Description', v.product.description) : []),
        ...(v.token ? row('Token', tokenText(v.token)) : []),
        ...(v.tamper ? row('Seal', sealText(v.tamper)) : []),
        h('dt', {}, 'Owner'),
        this.owner,
      ),
      v.token && this.proveControls(v, v.token.blockchain_type),
      this.claimForm,
      this.status,
      this.alert,
      h('h3', {}, TEXT.claimsHeading),
      this.claimList,
    );
  }

  private proveControls(v: ExtVerification, chain: string) {
    const hint = uniqueId();
    this.proveButton = h('button', { type: 'button', 'aria-describedby': hint, onclick: () => void this.prove(v, chain) }, TEXT.prove) as HTMLButtonElement;
    this.walletHint = h('span', { id: hint }, walletHint(chain, findProver(chain, this.getAttribute('wallet'))?.name ?? null));
    this.proveParagraph = h('p', {}, this.proveButton, ' ', this.walletHint);
    return this.proveParagraph;
  }

  private showOwner(ownership: Ownership | null) {
    this.owner.replaceChildren(
      ...(ownership
        ? [h('code', {}, ownership.wallet_address), ' (proven ', h('time', { datetime: ownership.verified_at }, timeText(ownership.verified_at)), ')']
        : [TEXT.notProven]),
    );
  }

  private say(status: string, alert = '') {
    this.status.textContent = status;
    this.alert.textContent = alert;
  }

  /**
   * One action of the visitor: `button` is disabled meanwhile; its outcome is announced last, once the
   * owner and the claims list are up to date, then sent as the `event` (detail: the API's answer).
   */
  private async act<T>(button: HTMLButtonElement, pending: string, action: () => Promise<T>, done: string, event: string, v: ExtVerification) {
    button.disabled = true;
    this.say(pending);
    try {
      const result = await action();
      await this.refreshClaims(v);
      this.say(done);
      this.dispatchEvent(new CustomEvent(event, { detail: result, bubbles: true }));
    } catch (error) {
      this.say('', refusalText(error));
    } finally {
      button.disabled = false;
    }
  }

  private async prove(v: ExtVerification, chain: string) {
    // Looked up again: wallets may inject themselves after the page loaded.
    const prover = findProver(chain, this.getAttribute('wallet'));
    this.walletHint.textContent = walletHint(chain, prover?.name ?? null);
    if (!prover) return this.say('', walletHint(chain, null));
    const prove = async () => {
      const result = await prover.prove(this.client, v.verification_id);
      this.showOwner(result.ownership);
      // Proven: the Owner row and the status say so, and a second proof by the same wallet would prove nothing new.
      this.proveParagraph.hidden = true;
      return result;
    };
    await this.act(this.proveButton, TEXT.proving, prove, TEXT.proven, 'tapproof-proven', v);
    // The button that had the focus is gone: the focus goes to the outcome, not back to the page's start.
    if (this.proveParagraph.hidden) this.status.focus();
  }

  private claim(v: ExtVerification, note: string) {
    const claim = () => this.client.claim({ resource_url: this.resourceUrl, verification_id: v.verification_id, note: note || null });
    return this.act(this.claimForm.querySelector('button')!, '', claim, TEXT.claimed, 'tapproof-claimed', v);
  }

  /** The page's claims; the claim form hides once this verification is among them. */
  private async refreshClaims(v: ExtVerification) {
    let claims: ExtVerification[];
    try {
      claims = await this.client.claims(this.resourceUrl);
    } catch {
      return; // the list stays as it was; the verdict and the actions do not depend on it
    }
    this.claimForm.hidden = claims.some((c) => c.verification_id === v.verification_id);
    this.claimList.replaceChildren(
      ...(claims.length === 0
        ? [h('li', {}, TEXT.noClaims)]
        : claims.map((c) =>
            h(
              'li',
              {},
              c.verification_id,
              c.verification_id === v.verification_id && ' (this tap)',
              c.ownership ? `: owned by ${c.ownership.wallet_address}` : ': ownership not proven',
              c.note && ` — “${c.note}”`,
            ),
          )),
    );
  }
}
