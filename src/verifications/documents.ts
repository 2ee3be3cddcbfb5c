// Reading the POST /verifications document: shape problems are 400, values 422.
import { DomainError, problem, validationFailed } from '../errors.js';
import type { ScanRequest } from './service.js';
import { isObject } from '../json.js';

const ATTRIBUTES = ['url', 'client_ip'];

export function readVerificationDocument(body: unknown): ScanRequest {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'verifications' || 'id' in body.data) throw new DomainError('MalformedBody');
  const attributes = body.data.attributes;
  if (!isObject(attributes)) throw new DomainError('MalformedBody');
  if (!('url' in attributes)) throw new DomainError('MissingAttribute');
  const unknown = Object.keys(attributes).filter((name) => !ATTRIBUTES.includes(name));
  if (unknown.length > 0) throw validationFailed(unknown.map((name) => problem(name, `${name} is not a verification attribute`)));
  return { url: attributes.url, client_ip: attributes.client_ip };
}
