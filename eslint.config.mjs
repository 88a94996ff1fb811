import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'src/generated/', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.property.name='only']", message: 'No focused tests.' }],
    },
  },
  {
    // Imports flow one way: transports -> services/domain -> db. The domain is pure.
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/db/**', '**/services/**', '**/rest/**', '**/graphql/**', '**/jobs/**', 'pg', '@prisma/*', 'express'] }],
    },
  },
  {
    files: ['src/services/**/*.ts', 'src/db/**/*.ts', 'src/jobs/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/rest/**', '**/graphql/**', '**/transport/**', 'express'] }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
