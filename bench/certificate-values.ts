import type { RenderValues } from '../src/pdf/render-types.js';
import { worldNames } from '../test/helpers/world-names.js';

// The certificates of the CPU benches (pdf-cpu, typst): certificate i gets the i-th of the 19 world
// names in turn (made unique with its number when `unique`), a random code (Crockford base32, as
// issued ones are, from a fixed-seed generator) and its verification URL.

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function certificateValues(i: number, unique: boolean): RenderValues {
  let state = i + 1;
  let code = '';
  for (let k = 0; k < 16; k++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    code += CROCKFORD[state >>> 27];
  }
  const name = worldNames[i % worldNames.length]!.name;
  return {
    recipientName: unique ? `${name} ${i}` : name,
    issuedAt: new Date(Date.UTC(2026, 10, 21, 9, 30) + i * 1000).toISOString(),
    uniqueCode: code,
    verificationUrl: `https://certs.example.com/verify/${code}`,
    data: { course: 'Advanced TypeScript for Services', hours: 12 + (i % 5) },
  };
}
