import { Type, type Static } from 'typebox';
import { EXAMPLE, Timestamp } from '../../platform/http/schemas.js';

// The Template resource: validates nothing (it is only answered), shapes the answer, describes it in
// OpenAPI and gives the TypeScript type.
export const Template = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    fields: Type.Array(
      Type.Object({
        key: Type.String({ description: 'Key of recipient.data that the design uses' }),
        label: Type.String(),
        required: Type.Boolean({
          description: 'A missing required key is a 422 at ["recipient","data",key]',
        }),
        type: Type.Optional(
          Type.Union([Type.Literal('text'), Type.Literal('list')], {
            description:
              'text (absent: text): one value; list: an array of objects, one row per item of the table on the second page (CSV columns key[0].col, key[1].col, ...)',
          }),
        ),
      }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Template', title: 'Template' },
);

export type TemplateView = Static<typeof Template>;

export const TEMPLATE_EXAMPLE: TemplateView = {
  id: EXAMPLE.templateId,
  name: 'Course completion',
  description: 'Certificate of completion for a course',
  fields: [
    { key: 'course', label: 'Course', required: true },
    { key: 'hours', label: 'Hours of instruction', required: false },
  ],
  createdAt: '2026-11-02T08:00:00.000Z',
  updatedAt: '2026-11-02T08:00:00.000Z',
};
