// Reading PATCH /profile/notifications: shape problems are 400, value problems 422 (the service).
import { DomainError } from '../errors.js';
import { isObject } from '../json.js';

export function readSettingsDocument(body: unknown, userId: string): Record<string, unknown> {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'notification-settings' || !isObject(body.data.attributes))
    throw new DomainError('MalformedBody');
  if ('id' in body.data && body.data.id !== userId) throw new DomainError('IdMismatch');
  return body.data.attributes;
}
