// Entry point of the `tapproof` bin (src/cli.ts registers every feature's commands).
import { main } from './cli.js';

await main(process.argv);
