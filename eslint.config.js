import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // tools/client/ is type-checked against types generated from the served document, which exist only
  // once tools/openapi-lint.ts has run (after this linter, in npm test).
  { ignores: ['dist/', 'node_modules/', 'data/', 'eslint.config.js', '.dependency-cruiser.cjs', 'tools/client/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
);
