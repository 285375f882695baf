// The structure's rules that eslint does not hold (npm run lint runs this after eslint):
// - every domain folder of src/modules/ is named in scripts/module-floors.js, imports only the folders
//   named beside it, and the folders so named form floors: no two import each other, no circle;
// - no file of src/ has more than 400 lines, no function more than 150 (docs/architecture.md).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { MODULE_FLOORS } from './module-floors.js';

const root = path.resolve(import.meta.dirname, '..');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 150;
const problems = [];

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return /\.(ts|js)$/.test(name) ? [full] : [];
  });
}

// The floors: the allowed imports must be a graph without circles (a pair is a circle of two).
const placed = new Set();
const remaining = new Set(Object.keys(MODULE_FLOORS));
while (remaining.size > 0) {
  const next = [...remaining].filter((f) => MODULE_FLOORS[f].every((g) => placed.has(g)));
  if (next.length === 0) {
    problems.push(
      `scripts/module-floors.js: these folders allow each other in a circle: ${[...remaining].join(', ')}`,
    );
    break;
  }
  for (const f of next) {
    placed.add(f);
    remaining.delete(f);
  }
}

const modulesDir = path.join(root, 'src/modules');
for (const folder of readdirSync(modulesDir)) {
  if (!statSync(path.join(modulesDir, folder)).isDirectory()) continue;
  if (!(folder in MODULE_FLOORS)) {
    problems.push(`src/modules/${folder}/ is not named in scripts/module-floors.js: give it a floor`);
  }
}

const importPattern =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
for (const file of sources(path.join(root, 'src'))) {
  const rel = path.relative(root, file);
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_FILE_LINES) problems.push(`${rel}: ${lines} lines (at most ${MAX_FILE_LINES})`);

  const [, top, folder] = rel.split(path.sep);
  if (top === 'modules' && folder in MODULE_FLOORS) {
    for (const match of text.matchAll(importPattern)) {
      const spec = match[1] ?? match[2];
      if (!spec.startsWith('.')) continue;
      const target = path.relative(modulesDir, path.resolve(path.dirname(file), spec)).split(path.sep);
      if (target[0] === '..' || target.length < 2 || target[0] === folder) continue;
      if (!MODULE_FLOORS[folder].includes(target[0])) {
        problems.push(
          `${rel} imports src/modules/${target[0]}/: ${folder} may import only ${MODULE_FLOORS[folder].join(', ') || 'no other folder'}`,
        );
      }
    }
  }

  if (!file.endsWith('.ts')) continue;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > MAX_FUNCTION_LINES) {
        const name = node.name?.getText(source) ?? '(anonymous)';
        problems.push(
          `${rel}:${start + 1}: function ${name} has ${end - start + 1} lines (at most ${MAX_FUNCTION_LINES})`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

if (problems.length > 0) {
  console.error(`Structure: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(
  `Structure: ${Object.keys(MODULE_FLOORS).length} domain folders on their floors; no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`,
);
