// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './eslint-rules/layers.js';
import platformNames from './eslint-rules/platform-names.js';

const axpage = { rules: { ...layers.rules, ...platformNames.rules } };

/** The only files that may import @modelcontextprotocol/*. */
const SDK_FILES = [
  'src/server.ts',
  'src/transport/**/*.ts',
  'src/tools/define.ts',
  // Resources, resource templates, prompts and completions: the MCP surface beside tools.
  'src/surface/**/*.ts',
  'src/harness/**/*.ts',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'native/build/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { axpage },
    rules: { 'axpage/layers': 'error' },
  },
  // AT-SPI, D-Bus and X11 names stay below src/platform (eslint-rules/platform-names.js).
  // The headless desktop and the bench bring up and measure the Linux desktop itself (its
  // buses, Xvfb's extensions, table rows by their AT-SPI role): a Wayland one would sit
  // beside them. The harness and `axpage desktop` only call the headless desktop.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/platform/**', 'src/desktop/**', 'src/bench/**'],
    plugins: { axpage },
    rules: { 'axpage/platform-names': 'error' },
  },
  // The MCP SDK stays behind a few files, so moving to its next major version touches
  // only them (README, "Developing").
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@modelcontextprotocol/*', '@modelcontextprotocol/*/**'],
              message: `Import the MCP SDK only in ${SDK_FILES.join(', ')}: use what they export.`,
            },
          ],
        },
      ],
    },
  },
  { files: SDK_FILES, rules: { 'no-restricted-imports': 'off' } },
);
