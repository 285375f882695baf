import type { Studio } from './context.js';

// The Settings panel's Badge section (#studio-badge): the template's badge image, uploaded or
// removed at once (it is not part of the design, so neither Save nor undo touches it). The service
// checks the file (a PNG as any image; an SVG made safe or refused naming why); a refusal is said in
// the section and nothing changes. The preview is the stored image, or the default seal.

async function refusal(res: Response): Promise<string> {
  const page = new DOMParser().parseFromString(await res.text(), 'text/html');
  return page.getElementById('error-message')?.textContent ?? `error ${res.status}`;
}

export function wireBadge(studio: Studio): void {
  const section = document.getElementById('studio-badge');
  if (!section) return;
  const url = section.dataset.badgeUrl ?? '';
  const preview = section.querySelector<HTMLImageElement>('#studio-badge-preview');
  const picker = section.querySelector<HTMLInputElement>('input[data-badge-upload]');
  const remove = section.querySelector<HTMLButtonElement>('button[data-badge-remove]');
  const status = section.querySelector<HTMLElement>('#studio-badge-status');
  const say = (text: string, outcome: string) => {
    if (status) status.textContent = text;
    section.dataset.outcome = outcome;
  };
  const refresh = (hasImage: boolean) => {
    section.dataset.hasImage = String(hasImage);
    if (remove) remove.disabled = !hasImage;
    if (preview) preview.src = `${url}?t=${Date.now()}`;
  };

  picker?.addEventListener('change', async () => {
    const file = picker.files?.[0];
    if (!file) return;
    picker.value = '';
    const body = new FormData();
    body.append('_csrf', studio.csrf);
    body.append('file', file);
    say('Uploading the badge image…', 'busy');
    const res = await fetch(url, { method: 'POST', credentials: 'same-origin', body });
    if (!res.ok) return say(`Not changed: ${await refusal(res)}`, 'refused');
    const { mediaType } = (await res.json()) as { mediaType: string };
    refresh(true);
    say(`Badge image saved (${mediaType === 'image/png' ? 'PNG' : 'SVG'}).`, 'saved');
  });

  remove?.addEventListener('click', async () => {
    const body = new URLSearchParams({ _csrf: studio.csrf });
    const res = await fetch(`${url}/remove`, { method: 'POST', credentials: 'same-origin', body });
    if (!res.ok) return say(`Not removed: ${await refusal(res)}`, 'refused');
    refresh(false);
    say("Badge image removed: badges show the seal with the template's name.", 'removed');
  });
}
