// The browser side of the public verification page (src/modules/verify/verify.page.ts): "Copy
// link" and the "Check a PDF" drop zone. Bundled by scripts/build-browser.js and served from
// /verify/assets/ (the page's CSP: script-src 'self').
//
// The file the visitor drops is hashed on the device and never sent anywhere (the CSP has no
// connect-src either). WebCrypto only exists in secure contexts (https or localhost); a page opened
// over plain http on another host falls back to the small SHA-256 below.

// "Copy link": the clipboard API where the page may use it (secure contexts), else the selected text
// of the link box with the old copy command; the box stays there to copy by hand.
export function copyLinkClient(): void {
  const copy = document.getElementById('copy-link');
  const shareUrl = document.getElementById('share-url') as HTMLInputElement | null;
  const copyStatus = document.getElementById('copy-status');
  if (copy && shareUrl && copyStatus) {
    copy.hidden = false;
    copy.addEventListener('click', () => {
      const said = (ok: boolean) => {
        copyStatus.textContent = copy.getAttribute(ok ? 'data-copied' : 'data-copy-failed') || '';
        copyStatus.setAttribute('data-copied', String(ok));
      };
      const byHand = () => {
        shareUrl.focus();
        shareUrl.select();
        let ok = false;
        try {
          ok = document.execCommand('copy');
        } catch {
          ok = false;
        }
        said(ok);
      };
      if (navigator.clipboard && typeof navigator.clipboard.writeText === 'function') {
        navigator.clipboard.writeText(shareUrl.value).then(() => said(true), byHand);
      } else {
        byHand();
      }
    });
  }
}

// FIPS 180-4 SHA-256 over the whole file, for browsers without crypto.subtle.
export function sha256Fallback(data: Uint8Array): Uint8Array {
  const K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);
  const length = data.length;
  const padded = new Uint8Array((((length + 9 + 63) / 64) | 0) * 64);
  padded.set(data);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
  view.setUint32(padded.length - 4, (length * 8) >>> 0);
  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
    }
    let a = h[0]!;
    let b = h[1]!;
    let c = h[2]!;
    let d = h[3]!;
    let e = h[4]!;
    let f = h[5]!;
    let g = h[6]!;
    let hh = h[7]!;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (hh + S1 + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = h[0]! + a;
    h[1] = h[1]! + b;
    h[2] = h[2]! + c;
    h[3] = h[3]! + d;
    h[4] = h[4]! + e;
    h[5] = h[5]! + f;
    h[6] = h[6]! + g;
    h[7] = h[7]! + hh;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(i * 4, h[i]!);
  return out;
}

export function hex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += (bytes[i]! < 16 ? '0' : '') + bytes[i]!.toString(16);
  return s;
}

export async function digest(bytes: ArrayBuffer): Promise<{ hash: string; engine: string }> {
  const subtle = window.crypto && window.crypto.subtle;
  if (subtle && typeof subtle.digest === 'function') {
    return { hash: hex(new Uint8Array(await subtle.digest('SHA-256', bytes))), engine: 'webcrypto' };
  }
  return { hash: hex(sha256Fallback(new Uint8Array(bytes))), engine: 'js' };
}

// What the file is, by its first bytes and never by its name or type (a credential saved as
// credential.vc, a PDF renamed .json): `%PDF-` is a PDF; `{` after an optional UTF-8 byte-order
// mark and JSON whitespace is a credential (JSON); anything else is neither.
export function kindOf(bytes: Uint8Array): 'pdf' | 'credential' | 'other' {
  const pdf = [0x25, 0x50, 0x44, 0x46, 0x2d];
  if (bytes.length >= pdf.length && pdf.every((b, i) => bytes[i] === b)) return 'pdf';
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d) i++;
  return bytes[i] === 0x7b ? 'credential' : 'other';
}

// The "Check a PDF" drop zone: hashes the file dropped or chosen and says whether it is this
// certificate's PDF or credential.
export function pdfCheckClient(): void {
  const section = document.getElementById('pdf-check');
  const input = document.getElementById('pdf-file') as HTMLInputElement | null;
  const zone = document.getElementById('pdf-drop');
  const result = document.getElementById('pdf-check-result');
  const message = document.getElementById('pdf-check-message');
  const detail = document.getElementById('pdf-check-detail');
  if (!section || !input || !zone || !result || !message || !detail) return;
  const expected = (section.getAttribute('data-pdf-sha256') || '').toLowerCase();
  const credential = (section.getAttribute('data-credential-sha256') || '').toLowerCase();
  const revoked = section.getAttribute('data-revoked') === 'true';
  // The verdicts in the page's language; {file} stands for the file's name.
  let words: Record<string, string> = {};
  try {
    words = JSON.parse(section.getAttribute('data-messages') || '{}') as Record<string, string>;
  } catch {
    words = {};
  }
  const say = (name: string, file?: string): string =>
    (words[name] || name).split('{file}').join(file === undefined ? '{file}' : file);
  let latest = 0;

  function show(state: string, text: string, extra: string): void {
    result!.setAttribute('data-result', state);
    message!.textContent = text;
    detail!.textContent = extra;
    result!.hidden = false;
  }

  async function check(file: File): Promise<void> {
    const run = ++latest;
    result!.removeAttribute('data-sha256');
    result!.removeAttribute('data-engine');
    result!.removeAttribute('data-kind');
    show('pending', say('checking', file.name), '');
    try {
      const bytes = await file.arrayBuffer();
      const { hash, engine } = await digest(bytes);
      if (run !== latest) return;
      const kind = kindOf(new Uint8Array(bytes, 0, Math.min(bytes.byteLength, 1024)));
      result!.setAttribute('data-sha256', hash);
      result!.setAttribute('data-engine', engine);
      result!.setAttribute('data-kind', kind);
      if (kind === 'other') {
        show('unsupported', say('notPdfOrCredential'), say('notPdfOrCredentialDetail', file.name));
      } else if (kind === 'credential') {
        if (credential && hash === credential) {
          show(
            'match',
            say('credentialMatch'),
            revoked ? say('credentialMatchRevoked') : say('credentialMatchExact', file.name),
          );
        } else {
          show(
            'mismatch',
            say('credentialMismatch'),
            credential ? say('mismatchDetail', file.name) : say('credentialNone'),
          );
        }
      } else if (hash === expected) {
        show('match', say('pdfMatch'), revoked ? say('pdfMatchRevoked') : say('pdfMatchExact', file.name));
      } else {
        show('mismatch', say('pdfMismatch'), say('mismatchDetail', file.name));
      }
    } catch {
      if (run === latest) show('error', say('error'), '');
    }
  }

  input.addEventListener('change', () => {
    const file = input.files && input.files[0];
    if (file) void check(file);
    // Let the visitor pick the same file again and still get a fresh check.
    input.value = '';
  });
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('dragging');
    const file = event.dataTransfer && event.dataTransfer.files[0];
    if (file) void check(file);
  });
  // A file dropped next to the zone would otherwise make the browser navigate away to it.
  window.addEventListener('dragover', (event) => event.preventDefault());
  window.addEventListener('drop', (event) => event.preventDefault());
}

copyLinkClient();
pdfCheckClient();
