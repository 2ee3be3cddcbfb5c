// The unit tier (`npm run test:unit`): every *.unit.test.ts, in this one process (test/kit/tiers.ts).
import { runFiles, testFiles } from './kit/tiers.js';

await runFiles(testFiles('unit'));
