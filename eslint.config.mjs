// `npm run lint`. TypeScript is linted with type information (typescript-eslint's project service
// reads tsconfig.json, on the TypeScript 6 that lint/ installs); the .mjs harness and build scripts
// without it. Bug-finding rules only: formatting and style are not linted.
import { defineConfig, globalIgnores } from 'eslint/config';
import { globals, js, tseslint } from 'agent-bash-lint';

export default defineConfig(
  globalIgnores(['out/', 'dist/', 'sample-workspace/', '.vscode-test/']),
  // A disable comment that no longer suppresses anything goes, rather than hiding a later finding.
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // What the linter is here for (the first two are in recommendedTypeChecked already; named so they stay).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unnecessary-condition': 'error',
      // Left out: an `async` method without `await` is how this code implements a Promise-returning
      // interface, and it turns a throw into a rejection; dropping `async` would change that.
      '@typescript-eslint/require-await': 'off',
      // Left out: the code writes `m[1]!` on indexed access as if `noUncheckedIndexedAccess` were on;
      // such an assertion is a no-op, never a bug.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Passing on a rejection reason that arrived as `unknown` is forwarding, not inventing one.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // `import X = require('x')` keeps types and is how a CommonJS build is chosen (see shellAnalysis).
      '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }],
      // A `let` read by a callback before its one assignment cannot be `const`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests read JSON (package.json, CLI output) and assert its shape: `any` is the point there.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  {
    // The agent panel's webview script runs in the browser.
    files: ['media/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, acquireVsCodeApi: 'readonly' } },
  },
);
