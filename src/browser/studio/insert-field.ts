import type { TextElement } from '../../pdf/design.schema.js';
import type { Studio } from './context.js';
import { fieldChoices, namedText } from './placeholder-names.js';

// "Insert field" beside a text element's Text input: a list of the values a text can show, by their
// names ("Recipient name", "Expiry date", a field's label, "Signatory 1: name"); choosing one puts
// its placeholder at the caret, as one undo step. Under the input, the text as it reads with the
// placeholders named ("Awarded to [Recipient name]").

export function insertField(studio: Studio, e: TextElement, textWrap: HTMLElement): HTMLElement[] {
  const { state } = studio;
  const field = textWrap.querySelector('input') as HTMLInputElement;
  const reads = document.createElement('p');
  reads.className = 'hint studio-reads';
  reads.id = `${field.id}-reads`;
  const showReads = () => {
    const named = namedText(field.value, state.design);
    reads.textContent = named === field.value ? '' : `Reads: ${named}`;
  };
  showReads();
  field.addEventListener('input', showReads);
  field.setAttribute('aria-describedby', reads.id);

  const holder = document.createElement('div');
  holder.className = 'insert-field';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary';
  button.textContent = 'Insert field';
  button.setAttribute('aria-haspopup', 'menu');
  button.setAttribute('aria-expanded', 'false');
  const menu = document.createElement('ul');
  menu.className = 'insert-field-menu';
  menu.setAttribute('role', 'menu');
  menu.setAttribute('aria-label', 'Fields to insert');
  menu.hidden = true;
  const items = fieldChoices(state.design).map((choice) => {
    const li = document.createElement('li');
    li.setAttribute('role', 'none');
    const item = document.createElement('button');
    item.type = 'button';
    item.setAttribute('role', 'menuitem');
    item.tabIndex = -1;
    item.textContent = choice.label;
    item.title = choice.placeholder;
    item.addEventListener('click', () => {
      close(false);
      insertAtCaret(studio, e, field, choice.placeholder);
    });
    li.append(item);
    menu.append(li);
    return item;
  });
  const close = (refocus: boolean) => {
    menu.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    if (refocus) button.focus();
  };
  button.addEventListener('click', () => {
    if (!menu.hidden) return close(false);
    menu.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    items[0]?.focus();
  });
  // Arrows move along the list, Escape closes it; a click elsewhere closes it too.
  menu.addEventListener('keydown', (ev) => {
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const step = ev.key === 'ArrowDown' ? 1 : ev.key === 'ArrowUp' ? -1 : 0;
    if (step !== 0) {
      ev.preventDefault();
      items[(at + step + items.length) % items.length]?.focus();
    } else if (ev.key === 'Escape') {
      ev.preventDefault();
      close(true);
    }
  });
  holder.addEventListener('focusout', (ev) => {
    if (!holder.contains(ev.relatedTarget as Node | null)) close(false);
  });
  holder.append(button, menu);
  return [reads, holder];
}

// The placeholder goes where the caret was (or replaces the selected text); what was typed and not
// yet applied is applied first (its own undo step), so nothing typed is lost.
function insertAtCaret(studio: Studio, e: TextElement, field: HTMLInputElement, placeholder: string): void {
  field.dispatchEvent(new Event('change'));
  const value = field.value;
  const start = field.selectionStart ?? value.length;
  const end = field.selectionEnd ?? start;
  const next = value.slice(0, start) + placeholder + value.slice(end);
  studio.state.commit(() => (e.text = next));
  // The panel is drawn again: the caret goes after the placeholder in the new input.
  const again = document.getElementById(field.id) as HTMLInputElement | null;
  const caret = start + placeholder.length;
  again?.focus();
  again?.setSelectionRange(caret, caret);
}
