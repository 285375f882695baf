import type { DesignElement } from './design.schema.js';

// What people call each kind of element: the studio's element list and every design issue about an
// element use the same words, numbered from 1 as the list is ("Text 6: reaches past the right edge").

export const ELEMENT_LABELS: Record<DesignElement['type'], string> = {
  text: 'Text',
  qr: 'QR code',
  image: 'Image',
  rect: 'Rectangle',
  line: 'Line',
  signatory: 'Signatory',
  table: 'Table',
};

/** "Text 6" for the element at index 5 of `elements`. */
export function elementName(element: Pick<DesignElement, 'type'>, index: number): string {
  return `${ELEMENT_LABELS[element.type]} ${index + 1}`;
}

const named = new RegExp(`^(${Object.values(ELEMENT_LABELS).join('|')}) \\d+: `);

/**
 * One issue as a line of a summary: a message that names its element ("Text 6: ...") stands alone;
 * any other is prefixed with its path (`locale "xx" is not ...`).
 */
export function issueLine(issue: { path: (string | number)[]; message: string }): string {
  if (issue.path[0] === 'elements' && named.test(issue.message)) return issue.message;
  return `${issue.path.join('.') || '(root)'} ${issue.message}`;
}
