// The scan decision (src/verifications/decide.ts) on plain rows: genuine or not, counters, write
// generations and session placement. decide() is pure, so its chips and scans are objects built here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isId } from '../../src/ids.js';
import type { LockedChip } from '../../src/tag-chips/repository.js';
import { DEFAULT_THRESHOLDS } from '../../src/signals/thresholds.js';
import { decide, decided, type AuthenticScan, type FailedScan } from '../../src/verifications/decide.js';

const TEAM = 'team_0000000000000000000001';
const TAG = 'tag_0000000000000000000001';
const OTHER_TAG = 'tag_0000000000000000000002';
/** Times are microseconds since the epoch. */
const T0 = 1_780_000_000_000_000;
const SECOND = 1_000_000;

function chip(overrides: Partial<LockedChip> = {}): LockedChip {
  return {
    ...{ tag_id: TAG, write_generation: 1, last_counter: null, session_id: null, session_expires_at: null, session_duration: 60 },
    ...{ last_country: null, last_genuine_at: null, tamper_opened: 0 },
    ...overrides,
  };
}

const chipsOf = (...list: LockedChip[]) => new Map(list.map((c) => [c.tag_id, c]));

let serial = 0;
function authentic(counter: number, at: number, overrides: Partial<AuthenticScan['row']> = {}): AuthenticScan {
  serial++;
  return {
    kind: 'authentic',
    row: {
      id: `vrf_${String(serial).padStart(22, '0')}`,
      team_id: TEAM,
      mode: 'sandbox',
      tag_id: TAG,
      genuine: 0,
      reason: 'pending',
      read_counter: counter,
      tamper_permanent: null,
      tamper_current: null,
      session_id: null,
      scanned_at: at,
      url_hash: `hash-${counter}`,
      client_ip: '192.0.2.1',
      country: 'NL',
      write_generation: 1,
      signals: null,
      ...overrides,
    },
    limits: DEFAULT_THRESHOLDS,
  };
}

function failed(reason: string, at: number): FailedScan {
  return {
    kind: 'failed',
    row: {
      id: `vrf_failed_${reason}`,
      team_id: TEAM,
      mode: 'sandbox',
      tag_id: TAG,
      genuine: 0,
      reason,
      read_counter: null,
      tamper_permanent: null,
      tamper_current: null,
      session_id: null,
      scanned_at: at,
      url_hash: `hash-${reason}`,
      client_ip: null,
      country: null,
      write_generation: 1,
      signals: null,
    },
    limits: DEFAULT_THRESHOLDS,
  };
}

describe('decided', () => {
  test('ok makes the row genuine with its session; replayed makes it not genuine without one', () => {
    const scan = authentic(9, T0, { tamper_permanent: 'C', tamper_current: 'O' });
    assert.deepEqual(decided(scan, 'ok', 'ses_x'), { ...scan.row, genuine: 1, reason: 'ok', session_id: 'ses_x' });
    assert.deepEqual(decided(scan, 'replayed', null), { ...scan.row, genuine: 0, reason: 'replayed', session_id: null });
    assert.equal(scan.row.reason, 'pending', 'the scan itself is left as it was');
  });
});

describe('decide: counters and write generations', () => {
  test('the first genuine scan of a chip (no counter yet, even 0) is accepted and advances the chip', () => {
    const c = chip();
    const scan = authentic(0, T0);
    const d = decide([scan], chipsOf(c));
    assert.equal(d.results[0]!.genuine, 1);
    assert.equal(d.results[0]!.reason, 'ok');
    assert.equal(c.last_counter, 0);
    assert.deepEqual(d.losers, []);
    assert.deepEqual(d.inserts, [d.results[0]]);
    assert.deepEqual(d.advances, [{ before: chip(), after: c }]);
    assert.deepEqual([...d.acceptedHere.entries()], [[`${TAG} hash-0`, d.results[0]]]);
  });

  test('a counter equal to the last accepted one is a loser, with that counter as the newest', () => {
    const c = chip({ last_counter: 41 });
    const d = decide([authentic(41, T0)], chipsOf(c));
    assert.deepEqual(d.losers, [{ index: 0, newest: 41 }]);
    assert.equal(d.results[0], undefined);
    assert.deepEqual([d.inserts, d.sessions, d.advances, d.acceptedHere.size], [[], [], [], 0]);
    assert.equal(c.last_counter, 41);
  });

  test('a counter below the last accepted one is a loser', () => {
    const c = chip({ last_counter: 41 });
    const d = decide([authentic(3, T0)], chipsOf(c));
    assert.deepEqual(d.losers, [{ index: 0, newest: 41 }]);
    assert.equal(c.last_counter, 41);
  });

  test('a counter far above the last one (skipped taps, the 24-bit maximum) is genuine', () => {
    const c = chip({ last_counter: 5 });
    const d = decide([authentic(0xffffff, T0)], chipsOf(c));
    assert.equal(d.results[0]!.genuine, 1);
    assert.equal(c.last_counter, 0xffffff);
  });

  test('a scan checked under another write generation is a loser with no newest counter, whatever its counter', () => {
    const c = chip({ write_generation: 2, last_counter: 10 });
    const d = decide([authentic(500, T0, { write_generation: 1 })], chipsOf(c));
    assert.deepEqual(d.losers, [{ index: 0, newest: null }]);
    assert.deepEqual([d.inserts.length, d.advances.length], [0, 0]);
    assert.equal(c.last_counter, 10);
  });

  test('a scan of a tag whose chip is not among the locked ones is a loser with no newest counter', () => {
    const d = decide([authentic(1, T0, { tag_id: OTHER_TAG })], chipsOf(chip()));
    assert.deepEqual(d.losers, [{ index: 0, newest: null }]);
    assert.deepEqual(Array.from(d.results), [undefined]);
  });

  test('one tag in one batch: arrival order decides, so a lower counter after a higher one loses to it', () => {
    const c = chip({ last_counter: 5 });
    const d = decide([authentic(7, T0), authentic(6, T0 + SECOND)], chipsOf(c));
    assert.equal(d.results[0]!.reason, 'ok');
    assert.deepEqual(d.losers, [{ index: 1, newest: 7 }]);
    assert.equal(c.last_counter, 7);
  });

  test('rising counters in one batch are all accepted, and the chip advances once from its state before the batch', () => {
    const c = chip({ last_counter: 5 });
    const d = decide([authentic(6, T0), authentic(7, T0 + SECOND), authentic(8, T0 + 2 * SECOND)], chipsOf(c));
    assert.deepEqual(
      d.results.map((r) => r!.reason),
      ['ok', 'ok', 'ok'],
    );
    assert.equal(d.advances.length, 1);
    assert.equal(d.advances[0]!.before.last_counter, 5);
    assert.equal(d.advances[0]!.after, c);
    assert.equal(c.last_counter, 8);
  });

  test('the same URL twice in a batch: the first is accepted and is what acceptedHere finds, the second loses', () => {
    const c = chip();
    const first = authentic(12, T0);
    const again: AuthenticScan = { ...first, row: { ...first.row, id: 'vrf_again', scanned_at: T0 + SECOND } };
    const d = decide([first, again], chipsOf(c));
    assert.deepEqual(d.losers, [{ index: 1, newest: 12 }]);
    assert.equal(d.acceptedHere.get(`${TAG} hash-12`)!.id, first.row.id);
    assert.equal(d.inserts.length, 1);
  });

  test('two tags in one batch: each chip advances on its own, one advance per chip', () => {
    const a = chip({ last_counter: 1 });
    const b = chip({ tag_id: OTHER_TAG, last_counter: 100 });
    const d = decide([authentic(2, T0), authentic(50, T0, { tag_id: OTHER_TAG }), authentic(101, T0, { tag_id: OTHER_TAG })], chipsOf(a, b));
    assert.deepEqual(
      Array.from(d.results, (r) => r?.reason),
      ['ok', undefined, 'ok'],
    );
    assert.deepEqual(d.losers, [{ index: 1, newest: 100 }]);
    assert.deepEqual(
      d.advances.map((x) => [x.before.tag_id, x.before.last_counter, x.after.last_counter]),
      [
        [TAG, 1, 2],
        [OTHER_TAG, 100, 101],
      ],
    );
  });
});

describe('decide: failed scans and what passes through', () => {
  test('a failed scan is stored as it is, in arrival order among the accepted ones, and touches no chip', () => {
    const c = chip({ last_counter: 3 });
    const bad = failed('bad_cmac', T0);
    const ok = authentic(4, T0 + 1);
    const uid = failed('uid_mismatch', T0 + 2);
    const d = decide([bad, ok, uid], chipsOf(c));
    assert.equal(d.results[0], bad.row);
    assert.equal(d.results[2], uid.row);
    assert.deepEqual(
      d.inserts.map((r) => r.reason),
      ['bad_cmac', 'ok', 'uid_mismatch'],
    );
    assert.deepEqual(d.losers, []);
    assert.equal(d.acceptedHere.size, 1);
  });

  test('a batch of failed scans only: no advance, no session, chip untouched', () => {
    const c = chip({ last_counter: 3, session_id: 'ses_open', session_expires_at: T0 + 10 * SECOND });
    const d = decide([failed('bad_picc_data', T0)], chipsOf(c));
    assert.deepEqual([d.advances, d.sessions, d.losers], [[], [], []]);
    assert.deepEqual(c, chip({ last_counter: 3, session_id: 'ses_open', session_expires_at: T0 + 10 * SECOND }));
  });

  test('an accepted scan keeps its tamper status, client, country, time and ids', () => {
    const scan = authentic(1, T0, { tamper_permanent: 'O', tamper_current: 'C', client_ip: '2001:db8::1', country: 'DE' });
    const d = decide([scan], chipsOf(chip()));
    const row = d.results[0]!;
    assert.deepEqual({ ...row, session_id: 'x' }, { ...scan.row, genuine: 1, reason: 'ok', session_id: 'x' });
  });

  test('an empty batch decides nothing', () => {
    const d = decide([], new Map());
    assert.deepEqual([d.results, d.inserts, d.sessions, d.advances, d.losers, d.acceptedHere.size], [[], [], [], [], [], 0]);
  });
});

describe('decide: sessions', () => {
  test('the first genuine scan opens a session of the tag lasting session_duration seconds', () => {
    const c = chip({ session_duration: 90 });
    const d = decide([authentic(1, T0)], chipsOf(c));
    assert.equal(d.sessions.length, 1);
    const session = d.sessions[0]!;
    assert.ok(isId('ses', session.id), session.id);
    assert.deepEqual(session, { id: session.id, team_id: TEAM, mode: 'sandbox', tag_id: TAG, opened_at: T0, expires_at: T0 + 90 * SECOND });
    assert.equal(d.results[0]!.session_id, session.id);
    assert.deepEqual([c.session_id, c.session_expires_at], [session.id, T0 + 90 * SECOND]);
  });

  test('a second genuine scan inside the window joins and completes the session, which clears the chip pointer', () => {
    const c = chip();
    const d = decide([authentic(1, T0), authentic(2, T0 + 59 * SECOND)], chipsOf(c));
    assert.equal(d.sessions.length, 1);
    assert.deepEqual(
      d.results.map((r) => r!.session_id),
      [d.sessions[0]!.id, d.sessions[0]!.id],
    );
    assert.deepEqual([c.session_id, c.session_expires_at], [null, null]);
    assert.deepEqual([d.advances[0]!.after.session_id, d.advances[0]!.before.session_id], [null, null]);
  });

  test('a third genuine scan in the first one’s window opens a new session: a session holds two scans', () => {
    const c = chip();
    const d = decide([authentic(1, T0), authentic(2, T0 + SECOND), authentic(3, T0 + 2 * SECOND)], chipsOf(c));
    assert.equal(d.sessions.length, 2);
    assert.deepEqual(
      d.results.map((r) => r!.session_id),
      [d.sessions[0]!.id, d.sessions[0]!.id, d.sessions[1]!.id],
    );
    assert.deepEqual([c.session_id, c.session_expires_at], [d.sessions[1]!.id, T0 + 2 * SECOND + 60 * SECOND]);
  });

  test('a scan a microsecond before expiry joins; one at the expiry opens a new session', () => {
    const inside = chip({ session_id: 'ses_open', session_expires_at: T0 });
    const joined = decide([authentic(1, T0 - 1)], chipsOf(inside));
    assert.deepEqual([joined.results[0]!.session_id, joined.sessions.length], ['ses_open', 0]);

    const atExpiry = chip({ session_id: 'ses_open', session_expires_at: T0 });
    const opened = decide([authentic(1, T0)], chipsOf(atExpiry));
    assert.equal(opened.sessions.length, 1);
    assert.notEqual(opened.results[0]!.session_id, 'ses_open');
    assert.deepEqual([atExpiry.session_id, atExpiry.session_expires_at], [opened.sessions[0]!.id, T0 + 60 * SECOND]);
  });

  test('a session opened by an earlier batch (the chip points at it) is joined by the next genuine scan', () => {
    const c = chip({ last_counter: 1, session_id: 'ses_earlier', session_expires_at: T0 + 30 * SECOND });
    const d = decide([authentic(2, T0)], chipsOf(c));
    assert.deepEqual(d.sessions, []);
    assert.equal(d.results[0]!.session_id, 'ses_earlier');
    assert.deepEqual(d.advances, [
      {
        before: chip({ last_counter: 1, session_id: 'ses_earlier', session_expires_at: T0 + 30 * SECOND }),
        after: chip({ last_counter: 2, last_country: 'NL', last_genuine_at: T0 }),
      },
    ]);
  });

  test('after the window has passed, the next genuine scan opens a new session', () => {
    const c = chip({ last_counter: 1, session_id: 'ses_expired', session_expires_at: T0 - SECOND });
    const d = decide([authentic(2, T0)], chipsOf(c));
    assert.equal(d.sessions.length, 1);
    assert.notEqual(d.results[0]!.session_id, 'ses_expired');
    assert.equal(d.results[0]!.session_id, d.sessions[0]!.id);
  });

  test('a losing scan neither joins nor opens a session', () => {
    const c = chip({ last_counter: 5, session_id: 'ses_open', session_expires_at: T0 + SECOND });
    const d = decide([authentic(5, T0)], chipsOf(c));
    assert.deepEqual(d.sessions, []);
    assert.deepEqual([c.session_id, c.session_expires_at], ['ses_open', T0 + SECOND]);
  });

  test('the session lasts the chip row’s session_duration (the tag’s current one), per scan', () => {
    const c = chip({ session_duration: 1 });
    const d = decide([authentic(1, T0), authentic(2, T0 + SECOND)], chipsOf(c));
    assert.equal(d.sessions.length, 2, 'the second scan is at the first one’s expiry');
    assert.deepEqual(
      d.sessions.map((s) => [s.opened_at, s.expires_at]),
      [
        [T0, T0 + SECOND],
        [T0 + SECOND, T0 + 2 * SECOND],
      ],
    );
  });

  test('sessions belong to the scan’s world: team and mode come from the scan row', () => {
    const d = decide([authentic(1, T0, { mode: 'production', team_id: 'team_other' })], chipsOf(chip()));
    assert.deepEqual([d.sessions[0]!.team_id, d.sessions[0]!.mode], ['team_other', 'production']);
  });
});
