// A person's own settings: what they are emailed.
import getNotificationSettings from './get-notification-settings.js';
import updateNotificationSettings from './update-notification-settings.js';

export const profileRoutes = [getNotificationSettings, updateNotificationSettings] as const;
