import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    ['modules', 'dashboard', 'cli', 'app', 'deps', 'services'],
  ),
  ...layer(['src/modules/**/*.ts'], ['dashboard', 'cli', 'app', 'deps', 'services']),
  ...layer(['src/services.ts', 'src/deps.ts'], ['dashboard', 'cli', 'app']),
  ...layer(['src/dashboard/**/*.ts'], ['cli', 'app']),
  ...layer(['src/app.ts'], ['cli']),
);

// A no-restricted-imports rule for `files` that refuses imports of the named parts of src/.
function layer(files, above) {
  const groups = above.flatMap((part) =>
    ['modules', 'dashboard', 'cli'].includes(part) ? [`**/${part}/**`, `**/${part}`] : [`**/${part}.js`],
  );
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
            ],
          },
        ],
      },
    },
  ];
}
