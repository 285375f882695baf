import { csrfField, html, type Html } from '../html.js';

// The pieces the dashboard's pages share: a table of rows, what a list says when it is empty,
// the pager of a long list, a confirmation form, and a badge.

export interface Column {
  label: string | Html;
  /** A column that narrow screens hide. */
  opt?: boolean;
}

// A table of rows under a header of columns, in a box that scrolls sideways on narrow screens.
export function table(opts: {
  id?: string;
  columns: (string | Column)[];
  rows: Html[];
  /** The box around it: 'table-wrap' unless told; false for none. */
  wrap?: string | false;
  className?: string;
}): Html {
  const heads = opts.columns.map((c) => {
    const column = typeof c === 'string' ? { label: c } : c;
    return html`<th scope="col" ${column.opt ? html`class="opt"` : ''}>${column.label}</th>`;
  });
  const inner = html`<table
    ${opts.id ? html`id="${opts.id}"` : ''}
    ${opts.className ? html`class="${opts.className}"` : ''}
  >
    <thead>
      <tr>
        ${heads}
      </tr>
    </thead>
    <tbody>
      ${opts.rows}
    </tbody>
  </table>`;
  const wrap = opts.wrap ?? 'table-wrap';
  return wrap === false ? inner : html`<div class="${wrap}">${inner}</div>`;
}

// What a list says when it has nothing to show.
export function emptyState(text: string | Html, id?: string): Html {
  return html`<p class="muted" ${id ? html`id="${id}"` : ''}>${text}</p>`;
}

// The table of a list, or what it says when the list is empty.
export function tableOrEmpty<T>(
  items: T[],
  empty: string | Html,
  opts: Omit<Parameters<typeof table>[0], 'rows'> & { row: (item: T) => Html },
): Html {
  return items.length === 0 ? emptyState(empty) : table({ ...opts, rows: items.map(opts.row) });
}

// Previous and next of a list of pages; `link` gives a page's address.
export function pager(p: { page: number; totalPages: number }, link: (page: number) => string): Html {
  const none = html`<span></span>`;
  return html`<nav class="pager" aria-label="Pages">
    ${p.page > 1 ? html`<a class="button secondary" href="${link(p.page - 1)}" rel="prev">Previous</a>` : none}
    <span class="small">Page ${p.page} of ${Math.max(1, p.totalPages)}</span>
    ${p.page < p.totalPages ? html`<a class="button secondary" href="${link(p.page + 1)}" rel="next">Next</a>` : none}
  </nav>`;
}

// The form of a page that asks "are you sure?": the danger button, and Cancel back to `cancel`.
export function confirmForm(opts: { action: string; csrf: string; button: string; cancel: string }): Html {
  return html`<form method="post" action="${opts.action}">
    ${csrfField(opts.csrf)}
    <div class="actions">
      <button type="submit" class="danger">${opts.button}</button>
      <a class="button secondary" href="${opts.cancel}">Cancel</a>
    </div>
  </form>`;
}

export function badge(status: string): Html {
  return html`<span class="badge ${status}">${status}</span>`;
}
