// PDF renderer speed: `npx tsc -p tsconfig.json && node dist/bench/pdf.bench.js [threads]`.
// Goals on a 2-core machine: single certificate p50 < 20 ms, 500 certificates < 1.2 s wall.
import { readFileSync } from 'node:fs';
import { createPdfRenderer, type RenderTemplate, type RenderValues } from '../src/pdf/pdf-renderer.js';
import { worldNames } from '../test/helpers/world-names.js';

const designUrl = new URL('../../examples/designs/course-completion.json', import.meta.url);
const template: RenderTemplate = {
  id: 'bench',
  version: '1',
  design: JSON.parse(readFileSync(designUrl, 'utf8')),
};
const names = [
  'Zoë Ångström-Łukasiewicz',
  'Αλέξανδρος Παπαδόπουλος',
  'Анна Каренина',
  'José Ñúñez',
  'Li Wei',
];

function values(i: number): RenderValues {
  const code = `BENCH${String(i).padStart(11, '0')}`;
  return {
    recipientName: `${names[i % names.length]} ${i}`,
    issuedAt: new Date(Date.UTC(2026, 10, 21, 9, 30) + i * 1000).toISOString(),
    uniqueCode: code,
    verificationUrl: `https://certificates.example.com/verify/${code}`,
    data: { course: 'Advanced TypeScript for Services', hours: 12 + (i % 5) },
  };
}

const threads = process.argv[2] ? Number(process.argv[2]) : undefined;
const renderer = createPdfRenderer({ threads });
const ms = (start: number): number => Math.round((performance.now() - start) * 100) / 100;
try {
  let start = performance.now();
  await renderer.render(template, [values(0)]);
  console.log(`first single (includes worker start-up and template compile): ${ms(start)} ms`);

  start = performance.now();
  await renderer.render(
    template,
    Array.from({ length: 500 }, (_, i) => values(i)),
  );
  console.log(`first batch of 500: ${ms(start)} ms`);

  const batches: number[] = [];
  let bytes = 0;
  for (let round = 0; round < 5; round++) {
    start = performance.now();
    const outcomes = await renderer.render(
      template,
      Array.from({ length: 500 }, (_, i) => values(round * 500 + i)),
    );
    batches.push(ms(start));
    bytes = outcomes.reduce((sum, o) => sum + (o.ok ? o.pdf.length : 0), 0) / outcomes.length;
  }
  console.log(`batch of 500: ${batches.join(', ')} ms (mean PDF size ${Math.round(bytes)} bytes)`);

  // Names cycling through every covered writing system (fallback fonts, bidi, HarfBuzz shaping).
  const mixed: number[] = [];
  let cjkBytes = 0;
  let cjkCount = 0;
  for (let round = 0; round < 3; round++) {
    start = performance.now();
    const items = Array.from({ length: 500 }, (_, i) => ({
      ...values(i),
      recipientName: worldNames[i % worldNames.length]!.name,
    }));
    const outcomes = await renderer.render(template, items);
    mixed.push(ms(start));
    outcomes.forEach((o, i) => {
      if (o.ok && /[\p{Script=Han}\p{Script=Hangul}\p{Script=Hiragana}]/u.test(items[i]!.recipientName)) {
        cjkBytes += o.pdf.length;
        cjkCount++;
      }
    });
  }
  console.log(
    `batch of 500, names in ${worldNames.length} scripts: ${mixed.join(', ')} ms (mean PDF size for a CJK name ${Math.round(cjkBytes / cjkCount)} bytes)`,
  );

  const singles: number[] = [];
  for (let i = 0; i < 200; i++) {
    start = performance.now();
    await renderer.render(template, [values(10_000 + i)]);
    singles.push(performance.now() - start);
  }
  singles.sort((a, b) => a - b);
  const pct = (p: number): number =>
    Math.round((singles[Math.floor(p * (singles.length - 1))] ?? 0) * 100) / 100;
  console.log(`single: p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms, max ${pct(1)} ms`);
} finally {
  await renderer.close();
}
