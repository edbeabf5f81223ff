import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript'
import importX from 'eslint-plugin-import-x'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'
import { oneErrorPathConfig } from './eslint/rules/one-error-path.js'

export default tseslint.config(
  {
    ignores: [
      'build/',
      'public/build/',
      'tests/bench/floors/remix-hello/build/',
      'data/',
      'node_modules/',
      'playwright-report/',
      'test-results/',
      'coverage/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  {
    // imports in one order everywhere (Node's, then packages, then the app's own by #alias, then relative),
    // one import per module, and no import cycles
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      'import-x/internal-regex': '^#',
      'import-x/extensions': ['.js', '.ts', '.tsx'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      'import-x/first': 'error',
      'import-x/no-duplicates': ['error', { 'prefer-inline': true }],
      'import-x/order': [
        'error',
        {
          groups: ['builtin', 'external', 'internal', 'parent', 'sibling', 'index'],
          'newlines-between': 'never',
          alphabetize: { order: 'asc', caseInsensitive: true },
        },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    ignores: ['*.config.ts', 'tests/e2e/**'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    files: ['cli/**', 'db/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@remix-run/*', '#app/routes/*'], message: 'The CLI and db/ never import routes or Remix.' },
          ],
        },
      ],
    },
  },
  {
    // the learner's course pages stay light (ADR 021): their forms are validated by the action, in
    // a .server module, since a route that imports a schema ships zod even when only the action uses it
    files: ['app/routes/_learner+/course*.tsx'], // My Courses, the course page, the video page
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // gitignore-style patterns: an unescaped leading # would make a comment of it
              group: ['zod', '@conform-to/zod', '\\#app/modules/*/schema.ts'],
              message: 'Validate in the action through a .server module: a schema here ships zod to the page.',
            },
          ],
        },
      ],
    },
  },
  // a refusal becomes an answer in the wrappers only (ADR 030, 033)
  oneErrorPathConfig,
  prettier,
)
