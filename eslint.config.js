import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // Generated code (ajv standalone validators) is checked by the test that regenerates it.
  { ignores: ['dist/', 'node_modules/', 'wbplay-out/', 'test/fixtures/', '.bench-tmp/', '**/*.generated.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setImmediate: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly' } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // The CLI, benchmarks and scripts are where output is allowed to happen.
    files: ['src/cli/**', 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off' },
  },
);
