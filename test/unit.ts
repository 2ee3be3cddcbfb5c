// The unit tier (`npm run test:unit`): every *.unit.test.ts under test/, in one process. These
// files need no server, database or other service, so they share one start-up (tsx and the
// modules they import) instead of paying it per file. `npm test` runs this file beside the rest.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = import.meta.dirname;
const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.unit.test.ts'))
  .sort();
for (const file of files) await import(pathToFileURL(join(root, file)).href);
