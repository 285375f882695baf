import type { Studio } from './context.js';

// Unsaved changes (issue 30, item 8). The design differs from the one saved (or was restored from an
// autosaved draft and not saved since): leaving the page asks first (the browser's own question on
// closing or reloading; a clear one for this page's links and forms), and every
// data-autosave-seconds the design is stored as the user's draft of the template
// (POST data-draft-url), which the editor offers to restore the next time it is opened. The page's
// data-unsaved says it shows a design not saved: a restored draft ("draft") or a refused save's.

const LEAVE = 'This template has changes that are not saved. Leave this page without saving them?';

const clock = (d: Date) => d.toTimeString().slice(0, 5);

export function wireUnsaved(studio: Studio): void {
  const { root, state } = studio;
  const url = root.dataset.draftUrl;
  const seconds = Number(root.dataset.autosaveSeconds);
  // A restored draft, or a design whose save was refused, is unsaved from the start.
  const unsaved = root.hasAttribute('data-unsaved');
  const saved = unsaved ? undefined : JSON.stringify(state.design);
  const dirty = () => saved === undefined || JSON.stringify(state.design) !== saved;
  // A restored draft is stored already; a refused save's design is not.
  let drafted = root.dataset.unsaved === 'refused' ? undefined : JSON.stringify(state.design);
  let leaving = false;

  const note = document.createElement('span');
  note.className = 'small muted';
  note.id = 'draft-status';
  note.setAttribute('role', 'status');
  document.querySelector('.studio-head button[value=save]')?.before(note);

  const autosave = async () => {
    const text = JSON.stringify(state.design);
    if (!url || leaving || !dirty() || text === drafted) return;
    try {
      const res = await fetch(url, {
        method: 'POST',
        credentials: 'same-origin',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-csrf-token': studio.csrf,
        },
        body: `{"design":${text}}`,
      });
      if (res.status === 422 || res.status === 413) {
        // Not a design that can be stored (Edit as JSON): not tried again until it changes.
        drafted = text;
        note.textContent = 'Unsaved changes (not autosaved: the design is not valid)';
        return;
      }
      if (!res.ok) throw new Error(`error ${res.status}`);
      drafted = text;
      note.textContent = `Unsaved changes, autosaved at ${clock(new Date())}`;
    } catch {
      note.textContent = 'Unsaved changes (the autosave failed; it is tried again)';
    }
  };
  if (url && Number.isFinite(seconds) && seconds > 0) {
    window.setInterval(() => void autosave(), seconds * 1000);
  }

  window.addEventListener('beforeunload', (ev) => {
    if (leaving || !dirty()) return;
    ev.preventDefault();
    ev.returnValue = '';
  });
  // This page's own links and forms (the dashboard's navigation, History, Discard, sign out) ask in
  // words; Save and Publish (the design's form), in-page links and new tabs do not.
  document.addEventListener(
    'click',
    (ev) => {
      const link = (ev.target as Element | null)?.closest?.('a[href]');
      if (!(link instanceof HTMLAnchorElement) || ev.defaultPrevented) return;
      if (
        link.target === '_blank' ||
        link.hasAttribute('download') ||
        ev.ctrlKey ||
        ev.metaKey ||
        ev.shiftKey
      )
        return;
      if (link.getAttribute('href')?.startsWith('#')) return;
      confirmLeave(ev);
    },
    true,
  );
  document.addEventListener(
    'submit',
    (ev) => {
      const form = ev.target as HTMLFormElement;
      if (form.id === 'design-form') leaving = true;
      else if (form.target !== '_blank') confirmLeave(ev);
    },
    true,
  );
  function confirmLeave(ev: Event) {
    if (leaving || !dirty()) return;
    if (window.confirm(LEAVE)) leaving = true;
    else {
      ev.preventDefault();
      ev.stopImmediatePropagation();
    }
  }
}
