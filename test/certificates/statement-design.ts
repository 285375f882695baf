import type { Design } from '../../src/pdf/design.schema.js';

// A statement of attainment: a certificate on page 1, its units in a table on page 2 (issue 30 item 10).
export function statementDesign(): Design {
  return {
    name: 'Statement of attainment',
    pages: 2,
    page: { width: 842, height: 595 },
    background: { color: '#FFFBF0' },
    fields: [
      { key: 'course', label: 'Course', required: true },
      { key: 'units', label: 'Units', required: true, type: 'list' },
    ],
    elements: [
      { type: 'text', text: '{{recipient.name}}', x: 60, y: 200, width: 720, size: 32, align: 'center' },
      {
        type: 'text',
        text: 'completed {{data.course}}',
        x: 60,
        y: 260,
        width: 720,
        size: 16,
        align: 'center',
      },
      { type: 'qr', x: 700, y: 440, size: 100 },
      { type: 'text', page: 2, text: 'Units of {{recipient.name}}', x: 60, y: 30, width: 720, size: 16 },
      {
        type: 'table',
        page: 2,
        field: 'units',
        columns: [
          { key: 'name', label: 'Unit', width: 420 },
          { key: 'hours', label: 'Hours', width: 100 },
          { key: 'grade', label: 'Grade', width: 200 },
        ],
        x: 60,
        y: 70,
        width: 720,
        height: 460,
      },
      { type: 'text', page: 2, text: 'Code {{certificate.uniqueCode}}', x: 60, y: 550, width: 400, size: 9 },
    ],
  };
}
