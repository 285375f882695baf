import { html, type Html } from '../../platform/html.js';

// The studio's Badge section, in the Settings panel (issue 31): the template's badge image, the
// picture recipients download with their credential baked in. The studio's script (badge.ts)
// uploads and removes it at once, outside the design's versions.
export function badgeSection(templateId: string, hasImage: boolean): Html {
  const base = `/dashboard/templates/${templateId}/badge`;
  return html`<section
    class="studio-badge"
    id="studio-badge"
    aria-labelledby="badge-title"
    data-badge-url="${base}"
    data-has-image="${String(hasImage)}"
  >
    <h3 id="badge-title">Badge</h3>
    <p class="small muted">
      The picture of this template's badge: recipients download it with their credential baked in (Open Badges
      3.0), for backpacks that import badges. A PNG, or an SVG of at most 512 KB without scripts or outside
      references. Without one, the badge is a seal with the template's name in the design's colours.
    </p>
    <img id="studio-badge-preview" src="${base}" alt="The badge of this template" width="128" height="128" />
    <label
      >Badge image (PNG or SVG)
      <input type="file" accept="image/png,image/svg+xml,.png,.svg" data-badge-upload
    /></label>
    <button type="button" class="secondary" data-badge-remove ${hasImage ? '' : 'disabled'}>
      Remove badge image
    </button>
    <p class="small" id="studio-badge-status" role="status" aria-live="polite"></p>
  </section>`;
}
