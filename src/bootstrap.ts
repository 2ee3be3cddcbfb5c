// First start on an empty database: team `default` with one sandbox key, shown once.
import type { AppContext } from './context.js';
import { createKey } from './keys/service.js';
import { claimSetting } from './db/settings.js';
import { hasAnyTeam } from './teams/repository.js';
import { createTeam } from './teams/service.js';
import { isoMicros } from './time.js';
import { recordAudit, systemActor } from './audit/record.js';

export interface Bootstrapped {
  teamId: string;
  keyId: string;
  key: string;
}

/** Creates the default team and key exactly once per database, even with several processes starting together. */
export async function bootstrapIfEmpty({ db, clock }: Pick<AppContext, 'db' | 'clock'>): Promise<Bootstrapped | null> {
  // One transaction: the marker, the team and the key commit together or not at all.
  return db.kysely.transaction().execute(async (trx) => {
    if (!(await claimSetting(trx, 'bootstrapped', isoMicros(clock.nowMicros())))) return null;
    if (await hasAnyTeam(trx)) return null;
    const { id: teamId } = await createTeam(trx, 'default', null, clock);
    const { id: keyId, key, row } = await createKey(trx, teamId, 'sandbox', clock);
    const actor = systemActor('bootstrap');
    await recordAudit(trx, { teamId, mode: null, actor }, row.created_at, [
      { operation: 'team.create', resourceId: teamId, changes: { name: 'default', parent_id: null } },
    ]);
    await recordAudit(trx, { teamId, mode: 'sandbox', actor }, row.created_at, [
      { operation: 'key.create', resourceId: keyId, changes: { role: row.role, name: null, expires_at: null } },
    ]);
    return { teamId, keyId, key };
  });
}

export function bootstrapMessage(b: Bootstrapped, baseUrl: string): string {
  return [
    '',
    'tapproof: first start on an empty database.',
    `  created team ${b.teamId} ("default") and sandbox key ${b.keyId}.`,
    '  Your sandbox API key (shown only now, store it somewhere safe):',
    '',
    `    ${b.key}`,
    '',
    '  Try it:',
    '',
    `    curl -s -X POST ${baseUrl}/tags \\`,
    `      -H 'Authorization: Bearer ${b.key}' \\`,
    "      -H 'Content-Type: application/vnd.api+json' \\",
    `      -d '{"data":[{"type":"tags","attributes":{"protocol":"ntag_424_dna","url":"https://example.com/p/1"}}]}'`,
    '',
    '  The console: invite yourself, then open the link it prints:',
    '',
    `    ./bin/tapproof.js users invite --team ${b.teamId} --email you@example.com --role admin`,
    '',
  ].join('\n');
}
