import { csrfField, notice, page, type Flash, type PageFrame } from '../html.js';
import { EMPTY, html, type Html } from '../../platform/html.js';
import { settingsNav, type SettingsPage } from './settings-nav.js';

// The pieces the dashboard's pages share: a page under its heading, a table of rows, what a list says when it is empty,
// the pager of a long list, a filter's choice, a confirmation form, and a badge.

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
  /**
   * The name of a table with nothing to focus in its rows (no link, no button): its box becomes a
   * named region in the tab order, so that a keyboard can scroll it sideways (WCAG 2.1.1).
   */
  label?: string;
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
  if (wrap === false) return inner;
  if (opts.label === undefined) return html`<div class="${wrap}">${inner}</div>`;
  return html`<div class="${wrap}" role="region" aria-label="${opts.label}" tabindex="0">${inner}</div>`;
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

// A labelled choice of a filter form (its name is its id).
export function select(
  name: string,
  label: string,
  options: { value: string; label: string; selected: boolean }[],
): Html {
  return html`<div>
    <label for="${name}">${label}</label
    ><select id="${name}" name="${name}">
      ${options.map((o) => html`<option value="${o.value}" ${o.selected ? html` selected` : ''}>${o.label}</option>`)}
    </select>
  </div>`;
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

// A state in its colour (the class), named by `text` when the colour is another state's.
export function badge(status: string, text = status): Html {
  return html`<span class="badge ${status}">${text}</span>`;
}

// A page of the signed-in user under its heading (its title unless told), then the message left
// for it (a flash), then its body.
export function titledPage(
  opts: PageFrame & { heading?: Html; flash: Flash | undefined; settings?: SettingsPage },
): string {
  const { heading, flash, body, settings, ...frame } = opts;
  return page({
    ...frame,
    body: html`${settings && frame.user ? settingsNav(frame.user.role, settings) : EMPTY}
      <h1>${heading ?? frame.title}</h1>
      ${notice(flash)} ${body}`,
  });
}
