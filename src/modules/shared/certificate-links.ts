import { ValidationError } from '../../platform/errors.js';
import { isUniqueCode } from '../../platform/ids.js';

// A certificate's public names: its verification URL, the file name of its frozen PDF, and the check
// of a public code as given in a URL.

export function verificationUrl(publicBaseUrl: string, uniqueCode: string): string {
  return `${publicBaseUrl}/verify/${uniqueCode}`;
}

// The name of the frozen PDF, as downloaded and as attached to the certificate email.
export function certificateFileName(uniqueCode: string): string {
  return `certificate-${uniqueCode.replace(/[^A-Za-z0-9_-]/g, '_')}.pdf`;
}

// A public code as given in a URL: 422 unless it is 16 characters of Crockford base32; upper-cased.
export function checkedCode(input: string): string {
  if (!isUniqueCode(input)) {
    throw new ValidationError([
      {
        path: ['code'],
        message: 'must be 16 characters of Crockford base32 (0-9, A-Z without I, L, O, U)',
      },
    ]);
  }
  return input.toUpperCase();
}

// A code as people type it: any case, with spaces or dashes (the verification page's code box, the
// dashboard's search). Undefined unless it is a code.
export function codeOfText(text: string): string | undefined {
  const code = text.replace(/[\s-]+/g, '').toUpperCase();
  return isUniqueCode(code) ? code : undefined;
}
