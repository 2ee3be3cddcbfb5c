// What a person chose to be emailed (docs/email.md#what-you-are-emailed): theirs alone, read and changed
// from their own session. Without SMTP nobody can ask for mail: the settings say email is off and why.
import type { Kernel } from '../kernel.js';
import { problem, validationFailed, type FieldProblem } from '../errors.js';
import type { Principal } from '../world.js';
import * as mailRepo from './repository.js';
import type { SettingsRow } from './repository.js';

export const CHOICES = ['case_opened', 'daily_digest', 'sandbox'] as const;
export type Choice = (typeof CHOICES)[number];

export interface NotificationSettings {
  userId: string;
  choices: Record<Choice, boolean>;
  /** Null when email is on; else the sentence the console shows. */
  off: string | null;
  digestHour: number | null;
}

export const MAIL_OFF = 'email is off on this server: its operator has not set TAPPROOF_SMTP_URL (docs/email.md)';

function settingsOf(ctx: Pick<Kernel, 'config'>, userId: string, row: SettingsRow | undefined): NotificationSettings {
  return {
    userId,
    choices: { case_opened: row?.case_opened === 1, daily_digest: row?.daily_digest === 1, sandbox: row?.sandbox === 1 },
    off: ctx.config.mail === null ? MAIL_OFF : null,
    digestHour: ctx.config.mail?.digestHour ?? null,
  };
}

export async function notificationSettings(ctx: Pick<Kernel, 'db' | 'config'>, person: Principal): Promise<NotificationSettings> {
  return settingsOf(ctx, person.id, await mailRepo.settingsOf(ctx.db.kysely, person.id));
}

export async function changeNotificationSettings(
  ctx: Pick<Kernel, 'db' | 'config' | 'clock'>,
  person: Principal,
  attributes: Record<string, unknown>,
): Promise<NotificationSettings> {
  const errors: FieldProblem[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (!(CHOICES as readonly string[]).includes(name)) errors.push(problem(name, `${name} is not a notification setting; one of ${CHOICES.join(', ')}`));
    else if (typeof value !== 'boolean') errors.push(problem(name, `${name} must be true or false`));
    // Turning mail on where none can be sent would promise what never arrives.
    else if (value && ctx.config.mail === null && name !== 'sandbox') errors.push(problem(name, MAIL_OFF));
  }
  if (errors.length > 0) throw validationFailed(errors);
  const db = ctx.db.kysely;
  const stored = await mailRepo.settingsOf(db, person.id);
  const next = { ...settingsOf(ctx, person.id, stored).choices, ...(attributes as Partial<Record<Choice, boolean>>) };
  const now = ctx.clock.nowMicros();
  const row: SettingsRow = {
    user_id: person.id,
    team_id: person.teamId,
    case_opened: Number(next.case_opened),
    daily_digest: Number(next.daily_digest),
    sandbox: Number(next.sandbox),
    digest_from: next.daily_digest ? (stored?.digest_from ?? now) : null,
    updated_at: now,
  };
  await mailRepo.saveSettings(db, row);
  return settingsOf(ctx, person.id, row);
}
