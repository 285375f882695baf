import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { MODULE_FLOORS } from './scripts/module-floors.js';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        structuredClone: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // Arrows point down, floor by floor: src/platform and src/pdf; then src/modules (the domain); then
  // services.ts and deps.ts (the composition root); then the two doors, src/app.ts (the JSON API)
  // and src/dashboard/; then src/cli/. No file imports from a floor above its own.
  ...layer(
    ['src/pdf/**/*.ts', 'src/platform/**/*.ts'],
    ['modules', 'dashboard', 'admin', 'cli', 'app', 'deps', 'services'],
  ),
  ...layer(['src/modules/**/*.ts'], ['dashboard', 'admin', 'cli', 'app', 'deps', 'services']),
  // Inside src/modules/, each domain folder is a floor of its own: it imports only the folders
  // scripts/module-floors.js names for it (and the floors below src/modules/).
  ...Object.keys(MODULE_FLOORS).flatMap((folder) =>
    layer(
      [`src/modules/${folder}/**/*.ts`],
      ['dashboard', 'admin', 'cli', 'app', 'deps', 'services'],
      folder,
    ),
  ),
  ...layer(['src/services.ts', 'src/deps.ts'], ['dashboard', 'admin', 'cli', 'app']),
  ...layer(['src/dashboard/**/*.ts'], ['admin', 'cli', 'app']),
  // The operators' console (src/admin/) is a door beside the dashboard: it shares the dashboard's
  // page frame, styles and form readers, never its account sessions.
  ...layer(['src/admin/**/*.ts'], ['cli', 'app'], undefined, [
    {
      regex: '^(\\.\\./)+dashboard/(?!(html|assets|params|sessions\\.repository)\\.js$)',
      message:
        'src/admin/ may import from src/dashboard/ only html, assets, params and sessions.repository (no account sessions).',
    },
  ]),
  ...layer(['src/app.ts'], ['cli']),
  // The browser code (src/browser/, bundled by scripts/build-browser.js) takes only types from the
  // server's code (the design format): nothing of the server is bundled.
  ...layer(
    ['src/browser/**/*.ts'],
    ['modules', 'dashboard', 'admin', 'cli', 'app', 'deps', 'services'],
    undefined,
    [{ group: ['**/platform/**', 'node:*'], message: 'src/browser/ runs in the browser: no server code.' }],
  ),
  {
    files: ['src/browser/**/*.ts'],
    rules: { '@typescript-eslint/consistent-type-imports': ['error', { disallowTypeAnnotations: false }] },
  },
);

// A no-restricted-imports rule for `files` that refuses imports of the named parts of src/ and, for a
// domain folder of src/modules/, of the other domain folders it is not allowed (MODULE_FLOORS).
function layer(files, above, folder, extra = []) {
  const groups = above.flatMap((part) =>
    ['modules', 'dashboard', 'admin', 'cli'].includes(part)
      ? [`**/${part}/**`, `**/${part}`]
      : [`**/${part}.js`],
  );
  const others = folder
    ? Object.keys(MODULE_FLOORS).filter((f) => f !== folder && !MODULE_FLOORS[folder].includes(f))
    : [];
  const modulePatterns = others.length
    ? [
        {
          regex: `^(\\.\\./|.*/modules/)(${others.join('|')})/`,
          message: `src/modules/${folder}/ may import only ${MODULE_FLOORS[folder].join(', ') || 'no other domain folder'} of src/modules/ (scripts/module-floors.js, docs/architecture.md).`,
        },
      ]
    : [];
  // A module's own folder may be named like a part (modules/... never has dashboard/): only src/ paths count.
  return [
    {
      files,
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                group: groups,
                message: `${files.join(', ')} must not import ${above.join(', ')}: arrows point down (see docs/architecture.md).`,
              },
              ...modulePatterns,
              ...extra,
            ],
          },
        ],
      },
    },
  ];
}
