// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '**/dist/', 'data/', 'bench/results/', 'test/openapi/generated/'] },
  js.configs.recommended,
  {
    // .tsx: the console's Preact components (packages/console).
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      // Each file's nearest tsconfig.json: the build's for src/; test/ and bench/ have their own, extending tsconfig.check.json.
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // node:test runs what test() and describe() register; their promises are the runner's, not ours to await.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }] },
      ],
      // The code writes `list[i]!` where an index may miss, as if noUncheckedIndexedAccess were on; with it off,
      // this rule would strip every such assertion.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Values parsed from JSON, commander's options and the untyped pcsclite binding are `any` where they enter;
      // they are checked where they are used (TypeBox schemas, the CLI's option parsers), not cast at every read.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'warn',
      // An async function without await still turns a throw into a rejection, which is what callers of
      // promise-returning interfaces (Fastify handlers and plugins, a reader's transmit) expect.
      '@typescript-eslint/require-await': 'off',
      // The schema's tables are declared per feature and merged into one Database interface.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // A migration runs against the schema of its own time, not today's Database: Kysely<any>, as Kysely advises.
    files: ['src/db/migrations/**/*.ts', 'src/db/migrations.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests read the real server's JSON bodies as `any` and assert their exact shape.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
