import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * The layers and which way imports flow (docs/ARCHITECTURE.md):
 *   rest/, graphql/  ->  transport/  ->  services/  ->  db/  ->  domain/
 *                                      services/  ->  venues/  ->  domain/
 *   encoding/ (byte writers: JSON text, binary COPY rows, the CSV fast path) sits beside domain/:
 *   it may use domain types; db/, services/, rest/ and graphql/ use it; domain/ never does.
 * rest/ and graphql/ never import each other, and neither reaches db/; jobs/ run services;
 * venues/ (the venues' wire formats) knows nothing of storage or the API.
 * Only the composition root (src/*.ts and src/composition/: composition and its builders, http-app,
 * server, cli) knows every layer.
 */
const ROOT = ['**/composition', '**/http-app', '../server', '../../server', '../cli', '../../cli'];
const STORAGE = ['pg', '@prisma/*', '@electric-sql/*', '**/generated/**'];
const layer = (dir, forbidden) => ({
  files: [`src/${dir}/**/*.ts`],
  rules: { 'no-restricted-imports': ['error', { patterns: forbidden }] },
});

/** SQL text and Prisma calls live in src/db only (its repositories are their one home). */
const SQL = '/\\b(SELECT|INSERT INTO|DELETE FROM|ON CONFLICT)\\b|\\bUPDATE\\s+\\w+\\s+SET\\b/';
const NO_FOCUSED_TESTS = { selector: "CallExpression[callee.property.name='only']", message: 'No focused tests.' };
const NO_SQL = [
  { selector: `Literal[value=${SQL}]`, message: 'SQL belongs in a repository under src/db.' },
  { selector: `TemplateElement[value.raw=${SQL}]`, message: 'SQL belongs in a repository under src/db.' },
  { selector: "MemberExpression[property.name='prisma']", message: 'Prisma belongs in a repository under src/db.' },
  { selector: 'MemberExpression[property.name=/^\\$(queryRaw|executeRaw)/]', message: 'Raw SQL belongs in a repository under src/db.' },
];

export default tseslint.config(
  { ignores: ['dist/', 'src/db/generated/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', NO_FOCUSED_TESTS],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/db/**'],
    rules: { 'no-restricted-syntax': ['error', NO_FOCUSED_TESTS, ...NO_SQL] },
  },
  // The domain is pure: no I/O, no framework, no other layer.
  layer('domain', [...ROOT, ...STORAGE, 'express', 'pino', 'ioredis', '**/encoding/**', '**/db/**', '**/services/**', '**/rest/**', '**/graphql/**', '**/transport/**', '**/jobs/**']),
  // Byte-level writers and readers: no I/O, no layer above the domain.
  layer('encoding', [...ROOT, ...STORAGE, 'express', 'pino', 'ioredis', '**/db/**', '**/services/**', '**/rest/**', '**/graphql/**', '**/transport/**', '**/jobs/**', '**/venues/**']),
  layer('db', [...ROOT, 'express', '**/services/**', '**/rest/**', '**/graphql/**', '**/transport/**', '**/jobs/**']),
  layer('services', [...ROOT, ...STORAGE, 'express', '**/rest/**', '**/graphql/**', '**/transport/**', '**/jobs/**']),
  layer('venues', [...ROOT, ...STORAGE, 'express', '**/db/**', '**/services/**', '**/rest/**', '**/graphql/**', '**/transport/**', '**/jobs/**']),
  layer('jobs', [...ROOT, ...STORAGE, 'express', '**/db/**', '**/rest/**', '**/graphql/**', '**/transport/**']),
  layer('transport', [...ROOT, ...STORAGE, '**/db/**', '**/rest/**', '**/graphql/**', '**/jobs/**']),
  layer('rest', [...ROOT, ...STORAGE, '**/db/**', '**/graphql/**', '**/jobs/**']),
  layer('graphql', [...ROOT, ...STORAGE, '**/db/**', '**/rest/**', '**/jobs/**']),
  // The browser pages (web/, bundled by scripts/build-web.js): the browser's globals.
  {
    files: ['web/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
