// Tests that call services directly act as the CLI on this host would: the audit log records them so.
import { cliActor } from '../../src/audit/record.js';
import type { Caller, World } from '../../src/world.js';

export const asCli = (world: World): Caller => ({ teamId: world.teamId, mode: world.mode, actor: cliActor() });
