import type { ResourceObject } from '../http/jsonapi.js';
import type { NotificationSettings } from './settings.js';

export function renderSettings(settings: NotificationSettings): ResourceObject<Record<string, unknown>> {
  return {
    type: 'notification-settings',
    id: settings.userId,
    attributes: { ...settings.choices, email_off: settings.off, digest_hour: settings.digestHour },
  };
}
