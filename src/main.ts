// Entry point of the `tapproof` bin. Feature commands register on `program` by import.
import { main } from './cli.js';
import './tag-chips/cli.js';
import './emulator/cli.js';
import './webhooks/cli.js';
import './extension/catalog/cli.js';
import './extension/holdings/cli.js';

import './writer/cli.js';

await main(process.argv);
