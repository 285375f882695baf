// The dashboard's script, on every dashboard page (src/dashboard/html.ts): the import progress, the
// Copy buttons and pages that must not be posted again on reload.

// A page that answers a POST and must not be posted again on reload (the new key's page: the key is
// stored nowhere, so a reload would make another) turns its history entry into a plain GET of its URL.
if (document.querySelector('[data-once]')) history.replaceState(null, '', location.href);

// An import's page: its counters polled every second until it ends, then the page is reloaded
// (the result links appear).
const progress = document.querySelector<HTMLElement>('[data-import-progress]');
if (progress) {
  const url = progress.dataset.importProgress ?? '';
  const bar = document.getElementById('import-bar') as HTMLProgressElement | null;
  const text = (id: string, value: string) => {
    const el = document.getElementById(id);
    if (el) el.textContent = value;
  };
  const count = (n: number) => n.toLocaleString('en-US');
  const tick = () => {
    fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
      .then(
        (p: {
          state: string;
          done: number;
          rows: number;
          created: number;
          failed: number;
          rowsPerSecond: number | null;
          secondsLeft: number | null;
        }) => {
          if (bar) {
            bar.value = p.done;
            bar.setAttribute('aria-valuenow', String(p.done));
          }
          text('import-done', count(p.done));
          text('import-created', count(p.created));
          text('import-failed', count(p.failed));
          text('import-state', p.state);
          text('import-rate', p.rowsPerSecond === null ? '–' : count(p.rowsPerSecond));
          const left = p.secondsLeft;
          text(
            'import-left',
            left === null ? '–' : left < 60 ? `${left} s` : `${Math.floor(left / 60)} min ${left % 60} s`,
          );
          if (['done', 'cancelled', 'failed'].includes(p.state)) location.reload();
          else setTimeout(tick, 1000);
        },
        () => setTimeout(tick, 3000),
      );
  };
  setTimeout(tick, 1000);
}
document.querySelectorAll<HTMLButtonElement>('button[data-copy]').forEach((button) => {
  button.hidden = false;
  button.addEventListener('click', () => {
    const source = document.getElementById(button.dataset.copy ?? '');
    const status = document.getElementById(button.dataset.status ?? '');
    if (!source) return;
    navigator.clipboard.writeText(source.textContent ?? '').then(
      () => status && (status.textContent = 'Copied to the clipboard.'),
      () => status && (status.textContent = 'Copy failed: select the key and copy it by hand.'),
    );
  });
});

export {};
