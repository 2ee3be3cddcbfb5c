// The servers bench/floor.ts measures, one per process: what answering POST /verifications costs with
// nothing of tapproof's own around it. Each imports only Node, Fastify, the verification schemas and the
// chip cryptography: no hooks, keys, rate limit or database.
//   node --import tsx bench/lib/floor-server.ts http|fastify|fastify-sun PORT CHIPS_JSON
import { createServer } from 'node:http';
import Fastify from 'fastify';
import { verifySun424 } from '../../src/chips/index.js';
import { defaultLayout, readSdmPart } from '../../src/chips/url-layout.js';
import { CreateVerificationBody, VerificationDocument } from '../../src/verifications/schemas.js';

const [mode, port, chipsJson] = process.argv.slice(2) as [string, string, string];
const JSON_API = 'application/vnd.api+json';

// A verification document as the route answers it (same fields, same lengths).
const ANSWER = {
  data: {
    type: 'verifications',
    id: 'vrf_0ujtsYcgvSTl8PAuAdqWYF',
    attributes: {
      genuine: true,
      reason: 'ok',
      verification_id: 'VRF_0ujtsYcgvSTl8PAuAdqWYF',
      tag_id: 'tag_3nWPt7gpO5LBgrvqDKmq9y',
      read_counter: 17,
      tamper: null,
      session_id: 'ses_1h5T8bmoQHfFvW2YTsA0Lw',
      scanned_at: '2026-11-27T00:30:00.123456Z',
      country: null,
      client_ip: null,
      signals: [],
    },
  },
};
const ANSWER_TEXT = JSON.stringify(ANSWER);

const ready = () => process.send!('ready');

if (mode === 'http') {
  createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const url = JSON.parse(body)?.data?.attributes?.url;
      if (typeof url !== 'string') {
        response.writeHead(422).end();
        return;
      }
      response.writeHead(201, { 'content-type': JSON_API, 'content-length': Buffer.byteLength(ANSWER_TEXT) }).end(ANSWER_TEXT);
    });
  }).listen(Number(port), '127.0.0.1', ready);
} else {
  // The chip keys by tag url, as the bench generated them.
  const keys = new Map(
    Object.entries(JSON.parse(chipsJson) as Record<string, { meta: string; file: string }>).map(([url, k]) => [
      url,
      { meta: Buffer.from(k.meta, 'hex'), file: Buffer.from(k.file, 'hex') },
    ]),
  );
  const layout = defaultLayout('ntag_424_dna');
  const app = Fastify({ logger: false });
  // As in src/app.ts: bodies are read by the route, schemas only serialize.
  app.setValidatorCompiler(() => () => true);
  app.addContentTypeParser(JSON_API, { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch (error) {
      done(error as Error);
    }
  });
  app.post('/api/v1/verifications', { schema: { body: CreateVerificationBody, response: { 201: VerificationDocument } } }, async (request, reply) => {
    const url = (request.body as { data?: { attributes?: { url?: unknown } } })?.data?.attributes?.url;
    // Never expected: the bench counts any answer but 201 as failed.
    if (typeof url !== 'string') throw new Error('no url');
    if (mode === 'fastify-sun') {
      const query = url.indexOf('?');
      const chip = keys.get(url.slice(0, query));
      const sdm = chip && readSdmPart(layout, url, query + 1);
      if (!chip || !sdm) throw new Error('unknown tag');
      const v = sdm.values;
      const verdict = verifySun424({
        crypto: 'aes',
        sdmMetaReadKey: chip.meta,
        sdmFileReadKey: chip.file,
        piccData: v.picc_data!,
        cmac: v.cmac!,
        macInput: sdm.macInput,
      });
      if (!verdict.ok) throw new Error(`not genuine: ${verdict.reason}`);
    }
    return reply.code(201).type(JSON_API).send(ANSWER);
  });
  await app.listen({ port: Number(port), host: '127.0.0.1' });
  ready();
}
