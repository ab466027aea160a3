import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'web/dist/**', 'test-output/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The examples are plain Node.js 20 programs: its globals.
    files: ['examples/**/*.mjs'],
    languageOptions: { globals: { Buffer: 'readonly', fetch: 'readonly' } },
  },
  {
    // A server file past 400 lines splits along a seam, or says why not at its top:
    // `/* eslint-disable max-lines -- <reason> */`.
    files: ['src/**/*.ts'],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
);
