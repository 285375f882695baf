import { Type, type Static } from 'typebox';
import { DATA_KEY_PATTERN } from '../platform/ids.js';
import { DESIGN_MAX_BYTES } from '../platform/limits.js';

// The design file format: see docs/design-format.md. Coordinates are PDF points (1/72 inch),
// measured from the top-left corner of the page.

const Color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'Hex colour, e.g. #1F2937' });
// Images are stored inline as data URLs (PNG or JPEG); the CLI inlines files named in the design.
const ImageSource = Type.String({
  pattern: '^data:image/(png|jpeg);base64,[A-Za-z0-9+/=]+$',
  maxLength: DESIGN_MAX_BYTES,
  description:
    'data:image/png;base64,... or data:image/jpeg;base64,...: at most 40 megapixels and 10,000 px a side; the whole design is at most 2 MiB (a relative file path in a design file is inlined by the CLI)',
});

export const FontName = Type.Union(
  [Type.Literal('sans'), Type.Literal('sans-bold'), Type.Literal('serif'), Type.Literal('serif-bold')],
  {
    description:
      'Bundled DejaVu font for Latin, Greek, Cyrillic (and more); other scripts fall back to the bundled Noto fonts: Armenian, Georgian, Hebrew, Arabic, Devanagari, Bengali, Tamil, Thai, Chinese, Japanese, Korean',
  },
);

// A design's own fonts are stored inline like images; the CLI inlines .ttf/.otf files named in it.
const FontSource = Type.String({
  pattern: '^data:font/(ttf|otf);base64,[A-Za-z0-9+/=]+$',
  maxLength: DESIGN_MAX_BYTES,
  description:
    'data:font/ttf;base64,... or data:font/otf;base64,...: a TrueType-outline font; the whole design is at most 2 MiB (a relative file path in a design file is inlined by the CLI)',
});

const CustomFontName = Type.String({
  pattern: '^[a-z][a-z0-9-]{0,31}$',
  description: 'Name that text elements give as `font`; not one of the bundled names',
});

export const DesignFont = Type.Object(
  {
    name: CustomFontName,
    src: FontSource,
    fallback: Type.Optional(
      Type.Union(
        [Type.Literal('sans'), Type.Literal('sans-bold'), Type.Literal('serif'), Type.Literal('serif-bold')],
        {
          description:
            'Bundled font for the characters this font lacks (default sans); its weight picks the weight of the Noto fallbacks too',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: "One of the design's own fonts, tried before the bundled ones",
  },
);

export const TextElement = Type.Object(
  {
    type: Type.Literal('text'),
    text: Type.String({ minLength: 1, maxLength: 2000, description: 'Text with {{placeholders}}' }),
    x: Type.Number({ minimum: 0 }),
    y: Type.Number({ minimum: 0 }),
    width: Type.Number({ exclusiveMinimum: 0 }),
    size: Type.Optional(Type.Number({ minimum: 4, maximum: 200, default: 14 })),
    minSize: Type.Optional(
      Type.Number({ minimum: 4, maximum: 200, description: 'Smallest size when shrinking to fit' }),
    ),
    font: Type.Optional(
      Type.Union([FontName, CustomFontName], {
        description:
          "A bundled font (sans, sans-bold, serif, serif-bold) or the name of one of the design's fonts",
      }),
    ),
    color: Type.Optional(Color),
    align: Type.Optional(Type.Union([Type.Literal('left'), Type.Literal('center'), Type.Literal('right')])),
  },
  { additionalProperties: false },
);

export const ImageElement = Type.Object(
  {
    type: Type.Literal('image'),
    src: ImageSource,
    x: Type.Number({ minimum: 0 }),
    y: Type.Number({ minimum: 0 }),
    width: Type.Number({ exclusiveMinimum: 0 }),
    height: Type.Number({ exclusiveMinimum: 0 }),
  },
  { additionalProperties: false },
);

export const QrElement = Type.Object(
  {
    type: Type.Literal('qr'),
    x: Type.Number({ minimum: 0 }),
    y: Type.Number({ minimum: 0 }),
    size: Type.Number({ minimum: 36, maximum: 600 }),
    color: Type.Optional(Color),
    background: Type.Optional(Color),
  },
  { additionalProperties: false, description: 'QR code of the certificate verification URL' },
);

export const RectElement = Type.Object(
  {
    type: Type.Literal('rect'),
    x: Type.Number({ minimum: 0 }),
    y: Type.Number({ minimum: 0 }),
    width: Type.Number({ exclusiveMinimum: 0 }),
    height: Type.Number({ exclusiveMinimum: 0 }),
    fill: Type.Optional(Color),
    stroke: Type.Optional(Color),
    strokeWidth: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, default: 1 })),
  },
  { additionalProperties: false, description: 'Filled and/or outlined rectangle (borders, bands)' },
);

export const TemplateField = Type.Object(
  {
    key: Type.String({ pattern: DATA_KEY_PATTERN }),
    label: Type.String({ minLength: 1, maxLength: 200 }),
    required: Type.Boolean(),
  },
  { additionalProperties: false },
);

export const Design = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    title: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'What the certificate is for, with {{placeholders}} (e.g. {{data.course}}): filled at issue and frozen on the certificate as its title; shown by verification and used in emails. Without it, the title is the template name.',
      }),
    ),
    locale: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
        maxLength: 35,
        description:
          'BCP 47 language tag (default en), e.g. fr, de-CH, ar-EG: how dates and numbers are written on the PDF, and the language of the certificate email',
      }),
    ),
    fields: Type.Array(TemplateField, { maxItems: 50 }),
    validity: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 40,
        description:
          'How long a certificate stays valid after its issue: an ISO 8601 duration in years, months, weeks and/or days (P2Y, P6M, P90D). Its expiry is frozen on it at issue; a recipient expiresAt overrides it. Without it certificates do not expire.',
      }),
    ),
    remindBeforeDays: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 3650 }), {
        minItems: 1,
        maxItems: 10,
        uniqueItems: true,
        description:
          'Renewal reminders: the recipient is emailed this many whole days before the expiry (e.g. [30, 7]), once each; of the reminders already due at issue only the latest is sent, at once',
      }),
    ),
    renewalUrl: Type.Optional(
      Type.String({
        minLength: 9,
        maxLength: 2000,
        description: 'An https:// URL where a recipient renews the certificate; linked from the reminders',
      }),
    ),
    emailOnIssue: Type.Optional(
      Type.Boolean({
        description:
          'Every certificate issued from this template is queued for email to its recipient (the PDF attached) in the same transaction as the issue; default false',
      }),
    ),
    page: Type.Object(
      {
        width: Type.Number({ minimum: 72, maximum: 5000 }),
        height: Type.Number({ minimum: 72, maximum: 5000 }),
      },
      { additionalProperties: false, description: 'Page size in points, e.g. A4 landscape is 842 x 595' },
    ),
    background: Type.Optional(
      Type.Object(
        { color: Type.Optional(Color), image: Type.Optional(ImageSource) },
        { additionalProperties: false },
      ),
    ),
    fonts: Type.Optional(Type.Array(DesignFont, { maxItems: 4 })),
    elements: Type.Array(Type.Union([TextElement, ImageElement, QrElement, RectElement]), { maxItems: 500 }),
  },
  { additionalProperties: false },
);

export type Design = Static<typeof Design>;
export type TextElement = Static<typeof TextElement>;
export type ImageElement = Static<typeof ImageElement>;
export type QrElement = Static<typeof QrElement>;
export type RectElement = Static<typeof RectElement>;
export type TemplateField = Static<typeof TemplateField>;
export type DesignFont = Static<typeof DesignFont>;
