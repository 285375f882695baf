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

// Which page an element is drawn on (decisions 24): 1 (the default) or 2, when the design has two pages.
const OnPage = Type.Optional(
  Type.Union([Type.Literal(1), Type.Literal(2)], {
    description: 'The page it is drawn on: 1 (default) or 2',
  }),
);

export const TextElement = Type.Object(
  {
    type: Type.Literal('text'),
    page: OnPage,
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

// What a screen reader says for an image or the QR code in the tagged PDF (docs/design-format.md).
const AltText = Type.String({ maxLength: 500, description: 'Alternative text (tagged PDF /Alt)' });

export const ImageElement = Type.Object(
  {
    type: Type.Literal('image'),
    page: OnPage,
    src: ImageSource,
    x: Type.Number({ minimum: 0 }),
    y: Type.Number({ minimum: 0 }),
    width: Type.Number({ exclusiveMinimum: 0 }),
    height: Type.Number({ exclusiveMinimum: 0 }),
    alt: Type.Optional(AltText),
  },
  { additionalProperties: false },
);

export const QrElement = Type.Object(
  {
    type: Type.Literal('qr'),
    page: OnPage,
    x: Type.Number({ minimum: 0 }),
    y: Type.Number({ minimum: 0 }),
    size: Type.Number({ minimum: 36, maximum: 600 }),
    color: Type.Optional(Color),
    background: Type.Optional(Color),
    alt: Type.Optional(AltText),
  },
  { additionalProperties: false, description: 'QR code of the certificate verification URL' },
);

export const RectElement = Type.Object(
  {
    type: Type.Literal('rect'),
    page: OnPage,
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

export const LineElement = Type.Object(
  {
    type: Type.Literal('line'),
    page: OnPage,
    x: Type.Number({
      minimum: 0,
      description: 'Where the line starts (its left end, or its top end when vertical)',
    }),
    y: Type.Number({ minimum: 0 }),
    length: Type.Number({ exclusiveMinimum: 0 }),
    direction: Type.Optional(
      Type.Union([Type.Literal('horizontal'), Type.Literal('vertical')], { default: 'horizontal' }),
    ),
    weight: Type.Optional(
      Type.Number({ minimum: 0.25, maximum: 20, default: 1, description: 'Stroke width in points' }),
    ),
    color: Type.Optional(Color),
    dash: Type.Optional(
      Type.Union([Type.Literal('solid'), Type.Literal('dashed'), Type.Literal('dotted')], {
        default: 'solid',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'A straight horizontal or vertical rule (signature lines, dividers)',
  },
);

export const SignatoryElement = Type.Object(
  {
    type: Type.Literal('signatory'),
    page: OnPage,
    index: Type.Integer({ minimum: 1, maximum: 5, description: "Which of the template's signatories (1-5)" }),
    x: Type.Number({ minimum: 0 }),
    y: Type.Number({ minimum: 0 }),
    width: Type.Number({ exclusiveMinimum: 0 }),
    height: Type.Number({
      exclusiveMinimum: 0,
      description:
        "The whole block's height: the signature image above, then the line, the name and the title",
    }),
    size: Type.Optional(
      Type.Number({
        minimum: 4,
        maximum: 72,
        default: 12,
        description: "The name's size; the title is 85% of it",
      }),
    ),
    font: Type.Optional(Type.Union([FontName, CustomFontName])),
    color: Type.Optional(Color),
    align: Type.Optional(
      Type.Union([Type.Literal('left'), Type.Literal('center'), Type.Literal('right')], {
        default: 'center',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'A signatory block, placed as one element: signature image, line, name and title (and organisation)',
  },
);

export const TableColumn = Type.Object(
  {
    key: Type.String({
      pattern: DATA_KEY_PATTERN,
      description: "The key of each list item's value shown in this column",
    }),
    label: Type.String({ minLength: 1, maxLength: 200, description: "The column's heading" }),
    width: Type.Number({ exclusiveMinimum: 0, description: 'Width in points' }),
  },
  { additionalProperties: false },
);

export const TableElement = Type.Object(
  {
    type: Type.Literal('table'),
    page: Type.Literal(2, {
      description: 'Tables are drawn on the second page, repeated onto further pages when long',
    }),
    field: Type.String({
      pattern: DATA_KEY_PATTERN,
      description: 'The key of a list field: one row per item',
    }),
    columns: Type.Array(TableColumn, { minItems: 1, maxItems: 8 }),
    x: Type.Number({ minimum: 0 }),
    y: Type.Number({ minimum: 0 }),
    width: Type.Number({ exclusiveMinimum: 0 }),
    height: Type.Number({
      exclusiveMinimum: 0,
      description: 'The room for rows on a page; further rows go onto further pages',
    }),
    size: Type.Optional(Type.Number({ minimum: 4, maximum: 72, default: 11 })),
    font: Type.Optional(Type.Union([FontName, CustomFontName])),
    color: Type.Optional(Color),
    rule: Type.Optional(Color),
  },
  {
    additionalProperties: false,
    description: 'A table filled from a list field (a statement of attainment)',
  },
);

export const TemplateField = Type.Object(
  {
    key: Type.String({ pattern: DATA_KEY_PATTERN }),
    label: Type.String({ minLength: 1, maxLength: 200 }),
    required: Type.Boolean(),
    type: Type.Optional(
      Type.Union([Type.Literal('text'), Type.Literal('list')], {
        description:
          'text (when absent): one value; list: an array of objects (JSON data, or CSV columns key[0].col, key[1].col, ...) that a table shows one row per item',
      }),
    ),
  },
  { additionalProperties: false },
);

export const Signatory = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    title: Type.Optional(Type.String({ maxLength: 200 })),
    organisation: Type.Optional(Type.String({ maxLength: 200 })),
    signatureImage: Type.Optional(ImageSource),
  },
  {
    additionalProperties: false,
    description: 'A person who signs: printed on the PDF, not put in the credential',
  },
);

export const Design = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    recipientDescription: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          "What recipients and wallets see: the credential's achievement description (the internal description stays internal)",
      }),
    ),
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
    pages: Type.Optional(
      Type.Union([Type.Literal(1), Type.Literal(2)], {
        description: 'How many pages the design has (same size); absent means 1',
      }),
    ),
    fonts: Type.Optional(Type.Array(DesignFont, { maxItems: 4 })),
    signatories: Type.Optional(Type.Array(Signatory, { maxItems: 5 })),
    elements: Type.Array(
      Type.Union([
        TextElement,
        ImageElement,
        QrElement,
        RectElement,
        LineElement,
        SignatoryElement,
        TableElement,
      ]),
      { maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);

export type Design = Static<typeof Design>;
export type TextElement = Static<typeof TextElement>;
export type ImageElement = Static<typeof ImageElement>;
export type QrElement = Static<typeof QrElement>;
export type RectElement = Static<typeof RectElement>;
export type LineElement = Static<typeof LineElement>;
export type SignatoryElement = Static<typeof SignatoryElement>;
export type TableElement = Static<typeof TableElement>;
export type TableColumn = Static<typeof TableColumn>;
export type Signatory = Static<typeof Signatory>;
export type DesignElement = Design['elements'][number];
export type TemplateField = Static<typeof TemplateField>;
export type DesignFont = Static<typeof DesignFont>;
