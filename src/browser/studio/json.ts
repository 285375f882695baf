import type { Design } from '../../pdf/design.schema.js';
import type { Studio } from './context.js';

// Edit as JSON: the textarea (#design-json) always holds the design (Save sends it); a valid JSON
// typed into it becomes the design, as one undo step. The service checks it on save.

export function showJson(studio: Studio): void {
  studio.textarea.value = JSON.stringify(studio.state.design, null, 2);
}

export function wireJson(studio: Studio): void {
  const { textarea } = studio;
  textarea.addEventListener('change', () => {
    try {
      studio.state.replace(JSON.parse(textarea.value) as Design);
    } catch {
      studio.status.textContent = 'The JSON is not valid: the visual editor keeps the last valid design.';
    }
  });
}
