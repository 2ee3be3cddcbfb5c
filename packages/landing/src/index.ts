// The browser entry: the client and connectors, and <tapproof-verification> defined on import.
import { TapproofVerification } from './element.js';

export * from './client.js';
export { TapproofVerification };

if (!customElements.get('tapproof-verification')) customElements.define('tapproof-verification', TapproofVerification);
