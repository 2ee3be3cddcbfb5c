// Reading the POST /verifications document: shape problems are 400, values 422.
import { ApiError, validationFailed } from '../http/errors.js';
import type { ScanRequest } from './service.js';
import { isObject } from '../json.js';

const ATTRIBUTES = ['url', 'client_ip'];

export function readVerificationDocument(body: unknown): ScanRequest {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'verifications' || 'id' in body.data) throw new ApiError('MalformedBody');
  const attributes = body.data.attributes;
  if (!isObject(attributes)) throw new ApiError('MalformedBody');
  if (!('url' in attributes)) throw new ApiError('MissingAttribute');
  const unknown = Object.keys(attributes).filter((name) => !ATTRIBUTES.includes(name));
  if (unknown.length > 0) throw validationFailed(unknown.map((name) => ({ pointer: `/data/attributes/${name}`, detail: `${name} is not a verification attribute` })));
  return { url: attributes.url, client_ip: attributes.client_ip };
}
