// @ts-check
// ESLint with typescript-eslint's typed rules, over the whole tree (`make lint`). The typed rules
// read one program, tsconfig.test.json: every package's sources and tests, test/, the configs.
// Formatting is Prettier's (eslint-config-prettier turns off the rules it would fight).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/', '**/node_modules/', '.tools/', '.cache/', 'coverage/', 'data/'] },
  js.configs.recommended,
  // Among them: no-floating-promises, no-misused-promises, await-thenable, no-unused-vars, the
  // no-unsafe-* family and no-explicit-any.
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A switch over one of our unions (engines, statuses, events, ops) names every member: a
      // `default` does not count, so adding a member breaks the build where it is not handled.
      // A switch over a library's open-ended union may keep its default, with a disable saying so.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false }],
      // Leaving a property out by rest destructuring, and a parameter an interface makes us take
      // (named `_x`), are not unused code.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { ignoreRestSiblings: true, argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // A promise returned unawaited inside try escapes its catch and finally.
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/no-deprecated': 'error',
      // A rejection can be anything: a .catch callback that names it Error is an unchecked any.
      '@typescript-eslint/use-unknown-in-catch-callback-variable': 'error',
      // `async` with no await still turns a throw into a rejection, which callers of Engine methods,
      // route handlers and stores rely on; dropping the keyword to please the rule would change that.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The dashboard's browser code: its own program (DOM types, Preact's JSX), the same rules.
    files: ['dashboard/src/**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { project: './dashboard/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    // The dispatch table hands an engine's optional method to capability() (a 422 when it is
    // missing) and calls what comes back with .call(engine, ...): never unbound.
    files: ['engine-pod/src/dispatch/**/*.ts'],
    rules: { '@typescript-eslint/unbound-method': 'off' },
  },
  {
    // Tests read the JSON, YAML and Kubernetes objects the system under test produced as the wire
    // gave them (testkit's WireJson) and check them with expect(): typing each from the protocol's
    // schemas would assume the very shape a test is there to check, and a wrong guess fails the
    // test, not a user. So the rules that follow an `any` are off here; every other rule holds,
    // floating and misused promises above all (an unawaited expect().rejects passes silently).
    files: ['**/test/**/*.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain JavaScript (scripts, a measured child process, this file): no types to check.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', global: 'readonly' } },
  },
  {
    // The fake WhatsApp Web's page: scripts that run in Chromium, on WhatsApp Web's origin.
    files: ['engine-pod/test/fake-web/page/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'localStorage',
          'WebSocket',
          'crypto',
          'atob',
          'btoa',
          'console',
          'setTimeout',
          'clearTimeout',
          'Blob',
          'URL',
          'FormData',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  prettier,
);
