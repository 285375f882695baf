import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { NotFoundError } from '../../platform/errors.js';
import { browserAssetByFile, IMMUTABLE } from '../../platform/http/browser-assets.js';
import { errorResponses, example, nonJson, rateHeaders } from '../../platform/http/schemas.js';
import { languageFontBytes } from '../shared/language-fonts.js';
import { nameFontFile } from '../shared/name-fonts.js';

// The files of the verification page, under /verify/: its fonts and its script. Part of the page,
// not of the API: hidden from the description.

export function fileAnswer(mediaType: string, bytes: string, description: string) {
  const body = Type.String({ contentEncoding: 'binary', contentMediaType: mediaType });
  return nonJson(mediaType, example(body, bytes), description, rateHeaders);
}

export function verifyFileRoutes(app: FastifyInstance) {
  pageFontRoute(app);
  pageScriptRoute(app);
}

// The bundled fonts the page (and email bodies) fall back to for names in scripts the reader's
// device has no font for; browsers fetch one only for characters in its unicode-range. Part of
// the page, not of the API: hidden from the description.
function pageFontRoute(app: FastifyInstance) {
  app.get(
    '/verify/fonts/:file',
    {
      config: { access: { kind: 'anonymous' } },
      schema: {
        hide: true,
        operationId: 'verificationPageFont',
        tags: ['Verification'],
        summary: 'A font of the verification page (TrueType)',
        description:
          "Noto fonts (SIL Open Font License) for names in Arabic, Hebrew, Indic, Thai, CJK and other scripts; and the language switcher's fonts, cut to the names of the languages (e.g. language-arabic-400-<hash>.ttf).",
        security: [],
        params: Type.Object(
          { file: Type.String({ description: 'e.g. noto-arabic-400.ttf' }) },
          { additionalProperties: false },
        ),
        response: {
          200: fileAnswer(
            'font/ttf',
            '(the bytes of the TrueType font file)',
            'The font file, cacheable for a year',
          ),
          ...errorResponses(404, 429),
        },
      },
    },
    async (request, reply) => {
      const file = (request.params as { file: string }).file;
      // The language switcher's fonts (shared/language-fonts.ts), else a name font.
      const cut = languageFontBytes(file);
      const path = cut ? undefined : nameFontFile(file);
      if (!cut && !path) throw new NotFoundError('Font');
      return reply
        .type('font/ttf')
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .header('X-Content-Type-Options', 'nosniff')
        .send(cut ? Buffer.from(cut) : createReadStream(path!));
    },
  );
}

// The verification page's script (src/browser/verify.ts, bundled by scripts/build-browser.js), under
// its hashed name: cacheable for a year. Part of the page, not of the API: hidden from the description.
function pageScriptRoute(app: FastifyInstance) {
  app.get(
    '/verify/assets/:file',
    {
      config: { access: { kind: 'anonymous' } },
      schema: {
        hide: true,
        operationId: 'verificationPageScript',
        tags: ['Verification'],
        summary: 'The script of the verification page (JavaScript)',
        security: [],
        params: Type.Object(
          { file: Type.String({ description: 'e.g. verify-3F2A9C1B0D.js' }) },
          { additionalProperties: false },
        ),
        response: {
          200: fileAnswer('text/javascript', '(the script)', 'The script, cacheable for a year'),
          ...errorResponses(404, 429),
        },
      },
    },
    async (request, reply) => {
      const asset = browserAssetByFile((request.params as { file: string }).file, ['verify.js']);
      if (!asset) throw new NotFoundError('Script');
      return reply
        .type(asset.type)
        .header('Cache-Control', IMMUTABLE)
        .header('X-Content-Type-Options', 'nosniff')
        .send(asset.body);
    },
  );
}
