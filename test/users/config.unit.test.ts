// The console's sign-in settings as the environment sets them: key sign-in on for development and off in
// production unless asked for, the public URL reduced to its origin, single sign-on all or nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

const consoleOf = (env: Record<string, string>) => loadConfig(env).console;

test('key sign-in: on by default, off when NODE_ENV=production, and TAPPROOF_CONSOLE_KEY_SIGN_IN decides over both', () => {
  assert.equal(consoleOf({}).keySignIn, true);
  assert.equal(consoleOf({ NODE_ENV: 'production' }).keySignIn, false);
  assert.equal(consoleOf({ NODE_ENV: 'production', TAPPROOF_CONSOLE_KEY_SIGN_IN: '1' }).keySignIn, true);
  assert.equal(consoleOf({ TAPPROOF_CONSOLE_KEY_SIGN_IN: '0' }).keySignIn, false);
});

test('sessions: 120 idle minutes and 12 hours by default; the public URL is its origin', () => {
  const defaults = consoleOf({});
  assert.deepEqual([defaults.sessionIdleMinutes, defaults.sessionMaxHours, defaults.publicUrl, defaults.oidc], [120, 12, null, null]);
  assert.equal(consoleOf({ TAPPROOF_PUBLIC_URL: 'https://console.example.com:8443/some/path?x=1' }).publicUrl, 'https://console.example.com:8443');
  for (const [name, value] of [
    ['TAPPROOF_SESSION_IDLE_MINUTES', '10081'],
    ['TAPPROOF_SESSION_MAX_HOURS', '0'],
  ])
    assert.throws(() => consoleOf({ [name]: value }), ConfigError);
});

test('single sign-on: the issuer needs a client id, a secret and a team; the role claim defaults to tapproof_role', () => {
  const full = { TAPPROOF_OIDC_ISSUER: 'https://id.example.com', TAPPROOF_OIDC_CLIENT_ID: 'c', TAPPROOF_OIDC_CLIENT_SECRET: 's', TAPPROOF_OIDC_TEAM: 'team_x' };
  assert.deepEqual(consoleOf(full).oidc, { issuer: 'https://id.example.com', clientId: 'c', clientSecret: 's', teamId: 'team_x', roleClaim: 'tapproof_role' });
  for (const missing of ['TAPPROOF_OIDC_CLIENT_ID', 'TAPPROOF_OIDC_CLIENT_SECRET', 'TAPPROOF_OIDC_TEAM']) {
    const env: Record<string, string> = { ...full };
    delete env[missing];
    assert.throws(() => consoleOf(env), { message: `TAPPROOF_OIDC_ISSUER needs ${missing}` });
  }
});
