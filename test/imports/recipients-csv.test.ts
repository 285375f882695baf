import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '../../src/platform/errors.js';
import {
  MAX_CSV_BYTES,
  MAX_CSV_ROWS,
  parseRecipientsCsv,
  readRecipientsCsv,
  type CsvRow,
} from '../../src/modules/imports/recipients-csv.js';

// Decisions section 25: a CSV of at most 50,000 rows and 20 MB, counted while it is read. The rows
// are counted one record at a time and the reading stops at the first row past the limit; the
// bytes are counted before anything is parsed (a file in memory) or as they come (a stream).

const FIELDS = [{ key: 'course', required: false }];

function rows(n: number): string {
  return `name,email,course\n${Array.from({ length: n }, (_, i) => `Learner ${i},l${i}@example.com,C`).join('\n')}\n`;
}

// A stream of `bytes` in pieces, telling how much of it was read.
function streamOf(bytes: Buffer, piece = 64 * 1024) {
  const source = {
    read: 0,
    async *[Symbol.asyncIterator]() {
      for (let at = 0; at < bytes.length; at += piece) {
        const part = bytes.subarray(at, at + piece);
        source.read += part.length;
        yield part;
      }
    },
  };
  return source;
}

async function refusal(work: Promise<unknown> | (() => unknown)): Promise<ValidationError> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (err) {
    assert.ok(err instanceof ValidationError, String(err));
    return err;
  }
  assert.fail('the file was accepted');
}

describe('recipients CSV limits', () => {
  it('accepts 50,000 rows, and refuses 50,001 naming the limit, in both readers', async () => {
    assert.equal(MAX_CSV_ROWS, 50_000);
    const ok = Buffer.from(rows(50_000));
    const read = await readRecipientsCsv(ok, FIELDS);
    assert.equal(read.length, 50_000);
    assert.deepEqual(read.at(-1), {
      line: 50_001,
      recipient: { name: 'Learner 49999', email: 'l49999@example.com', data: { course: 'C' } },
    });
    assert.deepEqual(parseRecipientsCsv(ok, FIELDS), read);
    const over = Buffer.from(rows(50_001));
    const message =
      'The file has more than 50,000 rows: at most 50,000 can be issued from one file; split it';
    assert.equal((await refusal(readRecipientsCsv(over, FIELDS))).message, message);
    assert.equal((await refusal(() => parseRecipientsCsv(over, FIELDS))).message, message);
    assert.deepEqual((await refusal(readRecipientsCsv(over, FIELDS))).issues, [{ path: ['file'], message }]);
  });

  it('stops reading at the first row past the limit: tiny rows are not all built first', async () => {
    // Just under 20 MB of `a,b` rows: almost five million rows.
    const header = 'name,email\n';
    const tiny = Buffer.from(header + 'a,b\n'.repeat(Math.floor((MAX_CSV_BYTES - header.length) / 4)));
    assert.ok(tiny.length <= MAX_CSV_BYTES && tiny.length > MAX_CSV_BYTES - 4);
    const source = streamOf(tiny);
    const err = await refusal(readRecipientsCsv(source, FIELDS));
    assert.match(err.message, /more than 50,000 rows/);
    // The 50,001st row ends at about 200 kB: the reader stopped within a piece or two of it.
    assert.ok(source.read <= 4 * 64 * 1024, `read ${source.read} bytes of ${tiny.length}`);
    // A smaller limit counts the same way: refused at the row past it, whatever follows.
    const small = await refusal(readRecipientsCsv(streamOf(tiny), FIELDS, { rows: 3, bytes: MAX_CSV_BYTES }));
    assert.match(small.message, /more than 3 rows: at most 3 can be issued/);
    assert.match((await refusal(() => parseRecipientsCsv(tiny, FIELDS))).message, /more than 50,000 rows/);
  });

  it('refuses a file over 20 MB naming the limit, before parsing anything or as its bytes come', async () => {
    assert.equal(MAX_CSV_BYTES, 20_000_000);
    const message = 'The file is larger than 20 MB: at most 20 MB can be imported from one file; split it';
    // Valid CSV all through, and fewer than 50,000 rows, so that only the size can refuse it.
    const line = `Learner ${'x'.repeat(150)},l@example.com,${'Course '.repeat(36)}\n`;
    const big = Buffer.from(`name,email,course\n${line.repeat(Math.ceil(MAX_CSV_BYTES / line.length))}`);
    assert.ok(big.length > MAX_CSV_BYTES && big.length / line.length < MAX_CSV_ROWS);
    assert.equal((await refusal(readRecipientsCsv(big, FIELDS))).message, message);
    assert.equal((await refusal(() => parseRecipientsCsv(big, FIELDS))).message, message);
    const source = streamOf(big);
    assert.equal((await refusal(readRecipientsCsv(source, FIELDS))).message, message);
    assert.ok(source.read <= MAX_CSV_BYTES + 64 * 1024, `read ${source.read}`);
    // A file of exactly the limit is read, one byte more is not (a smaller limit, counted the same way).
    const exact = Buffer.from(rows(10));
    const limits = { rows: MAX_CSV_ROWS, bytes: exact.length };
    assert.equal((await readRecipientsCsv(exact, FIELDS, limits)).length, 10);
    assert.equal((await readRecipientsCsv(streamOf(exact, 5), FIELDS, limits)).length, 10);
    const oneMore = Buffer.concat([exact, Buffer.from('\n')]);
    for (const source of [oneMore, streamOf(oneMore, 5)]) {
      assert.match(
        (await refusal(readRecipientsCsv(source, FIELDS, limits))).message,
        new RegExp(`larger than ${exact.length} bytes`),
      );
    }
  });

  // Turns of the event loop while `work` runs, and the longest wait between two.
  async function turnsDuring<T>(work: () => Promise<T>) {
    let turns = 0;
    let longest = 0;
    let last = performance.now();
    let counting = true;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const started = performance.now();
    const value = await work();
    counting = false;
    return { value, turns, longest, ms: performance.now() - started };
  }

  it('lets the event loop run while it parses a large file', async (ctx) => {
    // About 19.7 MB of ordinary rows (within both limits).
    const line = (i: number) =>
      `Learner number ${i} ${'x'.repeat(150)},l${i}@example.com,${'Course '.repeat(29)}`;
    const text = `name,email,course\n${Array.from({ length: MAX_CSV_ROWS }, (_, i) => line(i)).join('\n')}\n`;
    const big = Buffer.from(text);
    assert.ok(big.length > 19_000_000 && big.length <= MAX_CSV_BYTES, String(big.length));
    const { value, turns, longest, ms } = await turnsDuring(() => readRecipientsCsv(big, FIELDS));
    ctx.diagnostic(
      `${big.length} bytes read in ${Math.round(ms)} ms, ${turns} turns, longest wait ${Math.round(longest)} ms`,
    );
    assert.equal(value.length, MAX_CSV_ROWS);
    // The reader gives a turn after every 10 ms of parsing; on a busy machine, count on one every
    // quarter of a second (reading it all in one go gives a single turn, after the whole file).
    assert.ok(turns >= 5 && turns >= ms / 250, `${turns} turns in ${Math.round(ms)} ms`);
  });

  it('lets the event loop run through rows that are slow to parse (fewer cells than the header)', async (ctx) => {
    // csv-parse builds an error object for each row whose length differs from the header's.
    const short = Buffer.from(`name,email,course\n${'a,b\n'.repeat(MAX_CSV_ROWS)}`);
    const { value, turns, longest, ms } = await turnsDuring(() => readRecipientsCsv(short, FIELDS));
    ctx.diagnostic(
      `50,000 short rows read in ${Math.round(ms)} ms, ${turns} turns, longest wait ${Math.round(longest)} ms`,
    );
    assert.equal(value.length, MAX_CSV_ROWS);
    assert.ok(turns >= 5 && turns >= ms / 250, `${turns} turns in ${Math.round(ms)} ms`);
  });
});

describe('recipients CSV reading', () => {
  const cases: [string, Buffer][] = [
    [
      'a BOM, semicolons and a quoted line break',
      Buffer.from('\uFEFFname;email;course\nA;a@x.test;C\n"B;b";b@x.test;"two\nlines"\n'),
    ],
    ['no line break at the end', Buffer.from('name,email\nA,a@x.test')],
    ['CRLF line ends and empty lines', Buffer.from('name,email\r\n\r\nA,a@x.test\r\nB,b@x.test\r\n\r\n')],
    ['an unclosed quote', Buffer.from('name,email,course\n"A,a@x.test,C\nB,b@x.test,C\n')],
    [
      'bytes that are not UTF-8',
      Buffer.concat([Buffer.from('name,email\n'), Buffer.from([0xff, 0x41]), Buffer.from(',a@x\n')]),
    ],
    ['an empty file', Buffer.alloc(0)],
    ['a header alone', Buffer.from('name,email\n')],
    ['a header without a line break', Buffer.from('name,email')],
    ['a header without name and email', Buffer.from('full_name,mail\nA,a@x.test\n')],
    ['a NUL in a row', Buffer.from('name,email,course\nA,a@x.test,C\nB\u0000,b@x.test,C\n')],
    ['a cell over the limit', Buffer.from(`name,email,course\nA,a@x.test,${'c'.repeat(1001)}\n`)],
    ['names in many scripts', Buffer.from(`name,email\n${'Zoë Ångström 張偉 محمد,z@x.test\n'.repeat(3000)}`)],
  ];
  const outcome = async (work: () => Promise<CsvRow[]> | CsvRow[]) => {
    try {
      return await work();
    } catch (err) {
      return err instanceof ValidationError ? `refused: ${err.message}` : err;
    }
  };

  for (const [name, bytes] of cases) {
    it(`reads ${name} the same in one go, a chunk at a time and from a stream of odd pieces`, async () => {
      const whole = await outcome(() => parseRecipientsCsv(bytes, FIELDS));
      assert.ok(!(whole instanceof Error), String(whole));
      assert.deepEqual(await outcome(() => readRecipientsCsv(bytes, FIELDS)), whole);
      // Seven-byte pieces split multi-byte characters, line ends and the header line.
      assert.deepEqual(await outcome(() => readRecipientsCsv(streamOf(bytes, 7), FIELDS)), whole);
    });
  }

  it('names the row and column of a bad cell, and the line a quoted line break moves', async () => {
    const err = await refusal(
      readRecipientsCsv(
        Buffer.from('name,email,course\n"A","a@x.test","two\nlines"\nB\u0000,b@x.test,C\n'),
        FIELDS,
      ),
    );
    assert.equal(err.message, 'Row 4, column name: the value contains a NUL character; nothing was issued');
    const ok = await readRecipientsCsv(
      Buffer.from('name;email;course\n"A";a@x.test;"two\nlines"\nB;b@x.test;C'),
      FIELDS,
    );
    assert.deepEqual(
      ok.map((r) => [r.line, r.recipient.name, r.recipient.data.course]),
      [
        [3, 'A', 'two\nlines'],
        [4, 'B', 'C'],
      ],
    );
  });
});
