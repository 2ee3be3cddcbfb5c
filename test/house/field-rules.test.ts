// The request-field rules are the one source of each field's schema: the schema
// the served OpenAPI document publishes is the rule's, and a value that schema
// refuses is refused by the API with the rule's sentence (never accepted because
// a hand-written check forgot a limit).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { fieldProblems, type FieldRule } from '../../src/http/field-rules.js';
import { enums } from '../../src/http/openapi.js';
import { CHALLENGE_RULES } from '../../src/extension/challenges.js';
import { CLAIM_RULES, PROOF_RULES } from '../../src/extension/documents.js';
import { ATTRIBUTES as TAG_RULES } from '../../src/tags/rules.js';
import { ATTRIBUTES as VERIFICATION_RULES } from '../../src/verifications/rules.js';
import { ATTRIBUTES as WEBHOOK_RULES } from '../../src/webhooks/rules.js';
import { ATTRIBUTES as WRITER_RULES } from '../../src/writer/documents.js';
import { DATABASES, call, sharedServer } from '../kit/harness.js';

const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema));
/** @fastify/swagger writes `const: x` as the equivalent `enum: [x]`; compare in that form. */
const published = (schema: unknown): unknown =>
  enums(
    JSON.parse(JSON.stringify(schema), (_key, value) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value) || !('const' in value)) return value;
      const { const: only, ...rest } = value;
      return { ...rest, enum: [only] };
    }),
  );
const targets = { allowHttpWebhooks: false, allowPrivateWebhooks: false };

// Values around every limit the schemas state, plus wrong types.
const SAMPLES: unknown[] = [
  null,
  true,
  0,
  -1,
  1,
  600,
  3600,
  3601,
  1.5,
  '',
  'x',
  'ntag_424_dna',
  'NTAG_424_DNA',
  'https://a.example/x',
  'VRF_abcdef',
  ['9000'],
  ['90'],
  ['900G'],
  Array(64).fill('9000'),
  Array(65).fill('9000'),
  '192.0.2.1',
  '2001:db8::1',
  '999.1.1.1',
  'https://a.example/' + 'b'.repeat(3054),
  'https://a.example/' + 'b'.repeat(3055),
  '0B5C1C1E-2D3F-4A5B-8C9D-0E1F2A3B4C5D',
  '0x14791697260E4c9A71f18484C9f997B308e59325',
  'cardano',
  'ethereum',
  'VRF_abcde',
  'VRF_' + 'a'.repeat(128),
  'VRF_' + 'a'.repeat(129),
  'a\u0000b',
  'r'.repeat(280),
  'r'.repeat(281),
  'https://a.example/' + 'a'.repeat(2030),
  'https://a.example/' + 'a'.repeat(2031),
  '😀'.repeat(50),
  '😀'.repeat(51),
  'c'.repeat(50),
  'c'.repeat(51),
  [],
  ['tag.created'],
  ['tag.created', 'tag.created'],
  ['tag.nope'],
  {},
  [1],
];

function agree<C>(rules: Record<string, FieldRule<any, C>>, context: C) {
  const ajv = new Ajv({ strict: false });
  for (const [name, rule] of Object.entries(rules)) {
    const accepts = ajv.compile(plain(rule.schema));
    for (const value of SAMPLES) {
      if (accepts(value)) continue;
      // The rule's own sentence, not the fallback that only says the published schema refused it: a limit the
      // schema states and the explanation forgot would give users no reason.
      const why = rule.explain(value, context);
      assert.ok(why !== null && why.length > 0, `${name}: ${JSON.stringify(value)?.slice(0, 40)} is refused by the schema with no explanation`);
      const problems = fieldProblems(name, rule, value, context);
      assert.ok(
        problems.every((p) => p.path === name || p.path.startsWith(`${name}/`)),
        `${name}: problems name the field`,
      );
    }
  }
}

test('every value a tag, webhook, verification, writer, claim, challenge or proof field schema refuses is explained by its rule, at the field', () => {
  agree(TAG_RULES, undefined);
  agree(WEBHOOK_RULES, targets);
  agree(CLAIM_RULES, undefined);
  agree(PROOF_RULES, undefined);
  agree(VERIFICATION_RULES, undefined);
  agree(WRITER_RULES, undefined);
  for (const chain of ['cardano', 'ethereum'] as const)
    agree(CHALLENGE_RULES, { uuid: '0b5c1c1e-2d3f-4a5b-8c9d-0e1f2a3b4c5d', verificationId: 'VRF_abcdef', chain });
});

test('lengths are counted as JSON Schema counts them (code points): a comment of 50 emoji passes, 51 fail', () => {
  assert.deepEqual(fieldProblems('comment', TAG_RULES.comment, '😀'.repeat(50), undefined), []);
  assert.deepEqual(fieldProblems('comment', TAG_RULES.comment, '😀'.repeat(51), undefined), [
    { path: 'comment', detail: 'comment must be at most 50 characters' },
  ]);
});

for (const kind of DATABASES) {
  describe(`the served OpenAPI document publishes the rules' schemas (${kind})`, () => {
    const suite = sharedServer(kind);

    test("tag, webhook, verification, writer, claim, challenge and proof request documents carry each field rule's schema as is", async () => {
      const { server } = suite;
      const doc = (await call(server, 'GET', '/openapi.json')).body;
      const body = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/vnd.api+json'].schema;
      const createTag = body('/tags', 'post').properties.data.items.properties.attributes.properties;
      const updateTag = body('/tags/{id}', 'patch').properties.data.properties.attributes.properties;
      for (const [name, rule] of Object.entries(TAG_RULES)) {
        assert.deepEqual(createTag[name], published(rule.schema), `POST /tags ${name}`);
        if (name !== 'protocol') assert.deepEqual(updateTag[name], published(rule.schema), `PATCH /tags/{id} ${name}`);
      }
      const createWebhook = body('/webhooks', 'post').properties.data.properties.attributes.properties;
      const updateWebhook = body('/webhooks/{id}', 'patch').properties.data.properties.attributes.properties;
      for (const [name, rule] of Object.entries(WEBHOOK_RULES)) {
        if (name === 'url' || name === 'events') assert.deepEqual(createWebhook[name], published(rule.schema), `POST /webhooks ${name}`);
        assert.deepEqual(updateWebhook[name], published(rule.schema), `PATCH /webhooks/{id} ${name}`);
      }
      const scan = body('/verifications', 'post').properties.data.properties.attributes.properties;
      for (const [name, rule] of Object.entries(VERIFICATION_RULES)) assert.deepEqual(scan[name], published(rule.schema), `POST /verifications ${name}`);
      const start = body('/writer/writes', 'post').properties.data.properties.attributes.properties;
      const responses = body('/writer/writes/{id}/responses', 'post').properties.data.properties.attributes.properties;
      for (const [name, rule] of Object.entries(WRITER_RULES))
        assert.deepEqual((name === 'tag_id' || name === 'operation' ? start : responses)[name], published(rule.schema), `writer ${name}`);
      const claim = doc.paths['/ext/claims'].post.requestBody.content['application/json'].schema.properties;
      for (const [name, rule] of Object.entries(CLAIM_RULES)) assert.deepEqual(claim[name], published(rule.schema), `POST /ext/claims ${name}`);
      const ext = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema.properties;
      for (const [name, rule] of Object.entries(CHALLENGE_RULES))
        assert.deepEqual(ext('/ext/verifications/{id}/challenge')[name], published(rule.schema), `challenge ${name}`);
      for (const [name, rule] of Object.entries(PROOF_RULES))
        assert.deepEqual(ext('/ext/verifications/{id}/proof')[name], published(rule.schema), `proof ${name}`);
    });
  });
}
