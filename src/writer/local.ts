// The writer routes called in-process: `tapproof emulator create` runs the very same step machine
// and service as a remote writer, without a server or an API key (the operator's CLI).
import type { Kernel } from '../kernel.js';
import type { MastersState } from '../master-keys/index.js';
import { DomainError } from '../errors.js';
import { jsonApiErrors } from '../http/error-handler.js';
import { STATUS } from '../http/errors.js';
import type { Caller } from '../world.js';
import { readResponsesDocument, readStartDocument } from './documents.js';
import type { Transport } from './relay.js';
import { renderWrite } from './serializer.js';
import { exchange, startTagWrite } from './service.js';

export class LocalTransport implements Transport {
  constructor(
    readonly ctx: Kernel & MastersState,
    readonly world: Caller,
  ) {}

  async post(path: string, body: unknown): Promise<{ status: number; body: any }> {
    try {
      if (path === '/writer/writes') {
        const { tagId, operation } = readStartDocument(body);
        return { status: 201, body: { data: renderWrite(await startTagWrite(this.ctx, this.world, tagId, operation)) } };
      }
      const id = /^\/writer\/writes\/([^/]+)\/responses$/.exec(path)?.[1];
      if (id === undefined) return { status: 404, body: null };
      const r = readResponsesDocument(body, id);
      return { status: 200, body: { data: renderWrite(await exchange(this.ctx, this.world, { id, ...r })) } };
    } catch (error) {
      if (error instanceof DomainError) return { status: STATUS[error.code], body: { errors: jsonApiErrors(error, body) } };
      throw error;
    }
  }
}
