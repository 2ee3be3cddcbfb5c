// The unit tier (`npm run test:unit`): every *.unit.test.ts, in this one process (test/kit/tiers.ts).
// `npm run test:unit -- test/chips/cmac.unit.test.ts …` runs only the files named (paths from the checkout or
// from test/); `npm run test:unit:watch` runs the tier again whenever a file it imports changes.
import { relative, resolve } from 'node:path';
import { runFiles, testFiles } from './kit/tiers.js';

const TEST = import.meta.dirname;
const named = process.argv.slice(2).map((arg) => relative(TEST, resolve(arg.startsWith('test/') || arg.startsWith('/') ? arg : `test/${arg}`)));
await runFiles(named.length > 0 ? named : testFiles('unit'));
