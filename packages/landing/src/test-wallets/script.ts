// The test wallets as a classic script, for pages and test runners that cannot import a module (a
// `<script src>`, Playwright's `addInitScript({path})`): it defines `TapproofTestWallets` on the global
// object, where an init script that runs wrapped in a function can still reach it.
import * as TapproofTestWallets from './index.js';

(globalThis as { TapproofTestWallets?: typeof TapproofTestWallets }).TapproofTestWallets = TapproofTestWallets;
