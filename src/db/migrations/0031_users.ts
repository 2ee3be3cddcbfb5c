import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { text } from './helpers.js';

// People who sign in to the console (docs/users.md): a user of one team with a key role, the one-time
// links that let them set a password or register a passkey, their passkeys, their server-side
// sessions, the challenges of passkey and single sign-on ceremonies, and the failed sign-ins that throttle guessing. Tokens and passwords are stored hashed.
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', text(dialect), (c) => c.primaryKey())
    .addColumn('team_id', text(dialect), (c) => c.notNull())
    // Lower-cased: one account per address across the deployment, so that signing in needs no team.
    .addColumn('email', text(dialect), (c) => c.notNull().unique())
    .addColumn('role', text(dialect), (c) => c.notNull())
    .addColumn('password_hash', text(dialect))
    .addColumn('oidc_subject', text(dialect), (c) => c.unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .addColumn('last_sign_in_at', 'bigint')
    .execute();
  await db.schema.createIndex('users_team').on('users').columns(['team_id', 'email']).execute();
  await db.schema
    .createTable('user_links')
    .addColumn('token_hash', text(dialect), (c) => c.primaryKey())
    .addColumn('user_id', text(dialect), (c) => c.notNull())
    .addColumn('purpose', text(dialect), (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_links_user').on('user_links').column('user_id').execute();
  await db.schema
    .createTable('user_passkeys')
    .addColumn('id', text(dialect), (c) => c.primaryKey())
    .addColumn('user_id', text(dialect), (c) => c.notNull())
    .addColumn('public_key', text(dialect), (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull())
    .addColumn('transports', text(dialect))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('user_passkeys_user').on('user_passkeys').column('user_id').execute();
  await db.schema
    .createTable('user_sessions')
    .addColumn('token_hash', text(dialect), (c) => c.primaryKey())
    .addColumn('id', text(dialect), (c) => c.notNull().unique())
    .addColumn('user_id', text(dialect), (c) => c.notNull())
    .addColumn('mode', text(dialect), (c) => c.notNull())
    .addColumn('csrf_token', text(dialect), (c) => c.notNull())
    .addColumn('method', text(dialect), (c) => c.notNull())
    .addColumn('address', text(dialect))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('user_sessions_user').on('user_sessions').column('user_id').execute();
  // A passkey ceremony's challenge, or a single sign-on's state, nonce and PKCE verifier: one use, minutes long.
  await db.schema
    .createTable('sign_in_challenges')
    .addColumn('id', text(dialect), (c) => c.primaryKey())
    .addColumn('purpose', text(dialect), (c) => c.notNull())
    .addColumn('user_id', text(dialect))
    .addColumn('data', text(dialect))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('sign_in_failures')
    .addColumn('subject', text(dialect), (c) => c.notNull())
    .addColumn('failed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_failures_subject').on('sign_in_failures').columns(['subject', 'failed_at']).execute();
}
