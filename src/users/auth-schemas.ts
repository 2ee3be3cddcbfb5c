// The console's sign-in calls under /auth: plain JSON objects (not JSON:API documents), published in the
// OpenAPI document beside the platform API so that the console is typed from it like every other client.
import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../http/schemas.js';
import { ATTRIBUTES } from './rules.js';

const Token = Type.String({ description: 'The token of a one-time link: the fragment after `#` in the link' });

export const SignInMethods = Type.Object({
  methods: Type.Object({
    password: Type.Boolean(),
    passkey: Type.Boolean(),
    oidc: Type.Boolean({ description: 'Single sign-on is configured (TAPPROOF_OIDC_ISSUER)' }),
    key: Type.Boolean({ description: 'The console offers signing in with a pasted API key (TAPPROOF_CONSOLE_KEY_SIGN_IN)' }),
  }),
});

export const SignedIn = Type.Object(
  {
    user: Type.Object({ id: Type.String({ description: 'usr_…' }), email: Type.String(), role: ATTRIBUTES.role.schema }),
    team: Type.Object({ id: Type.String({ description: 'team_…' }), name: Type.Union([Type.String(), Type.Null()]) }),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('production')], { description: 'The world the session acts in' }),
    method: Type.Union([Type.Literal('password'), Type.Literal('passkey'), Type.Literal('oidc')]),
    csrf_token: Type.String({ description: 'Echo it in X-CSRF-Token on every state-changing request made with the session' }),
    expires_at: { ...Timestamp, description: 'When the session ends unless used again (idle expiry), or its absolute end if sooner' },
  },
  { title: 'Who is signed in' },
);
export type SignedIn = Static<typeof SignedIn>;

export const LinkInfo = Type.Object(
  {
    email: Type.String(),
    role: ATTRIBUTES.role.schema,
    team: Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }),
    purpose: Type.Union([Type.Literal('invite'), Type.Literal('reset')]),
    expires_at: Timestamp,
  },
  { title: 'What a one-time link is for' },
);
export type LinkInfo = Static<typeof LinkInfo>;

export const SignInBody = Type.Object({ email: Type.String(), password: Type.String() });
export const LinkBody = Type.Object({ token: Token });
export const LinkPasswordBody = Type.Object({
  token: Token,
  password: Type.String({ description: 'At least 12 characters, at most 256; not a common password' }),
});
export const ModeBody = Type.Object({ mode: SignedIn.properties.mode });

/** A credential as @simplewebauthn/browser hands it over (its JSON form); what its strings hold is the ceremony's to judge. */
const Credential = (fields: readonly string[]) =>
  Type.Object(
    {
      id: Type.String(),
      rawId: Type.String(),
      type: Type.String(),
      response: Type.Object(Object.fromEntries(fields.map((f) => [f, Type.String()]))),
      clientExtensionResults: Type.Optional(Type.Object({})),
    },
    { description: "The authenticator's answer, as the JSON form of the WebAuthn credential" },
  );

export const PasskeyRegistrationBody = Type.Object({
  token: Type.Optional({ ...Token, description: "A one-time link's token; absent, the signed-in session registers the passkey" }),
  response: Credential(['clientDataJSON', 'attestationObject']),
});
export const PasskeyOptionsBody = Type.Object({ token: PasskeyRegistrationBody.properties.token });
export const PasskeySignInBody = Type.Object({ response: Credential(['clientDataJSON', 'authenticatorData', 'signature']) });

/** The WebAuthn options a ceremony starts from, as @simplewebauthn/server makes them (with a fresh, one-use challenge). */
export const PasskeyOptions = Type.Object(
  { challenge: Type.String({ description: 'base64url; spent by the first answer that names it' }) },
  { additionalProperties: true, description: 'PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON' },
);

export const PasskeyCount = Type.Object({ passkeys: Type.Integer({ description: 'How many passkeys the signed-in user has now' }) });
