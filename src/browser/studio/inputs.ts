import type { Studio } from './context.js';

// The labelled inputs and selects of the panels.

export interface InputOptions {
  /** A select's choices: a value, or [value, text]. */
  options?: (string | [string, string])[];
  /** A text or number input that applies as it is typed in: one undo step per burst of typing. */
  live?: boolean;
  /** Other properties of the input (step, min, dir, accept). */
  attributes?: Partial<Pick<HTMLInputElement, 'step' | 'min' | 'dir' | 'accept'>>;
}

/** Typing applies this long after the last key (debounced). */
const TYPING_DELAY = 150;

export function input(
  studio: Studio,
  label: string,
  value: string,
  type: string,
  onChange: (v: string) => void,
  opts: InputOptions = {},
): HTMLDivElement {
  const { options = [], live = false, attributes = {} } = opts;
  const { state } = studio;
  const id = `prop-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const wrap = document.createElement('div');
  const l = document.createElement('label');
  l.htmlFor = id;
  l.textContent = label;
  let field: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  if (type === 'textarea') {
    field = document.createElement('textarea');
    field.rows = 3;
  } else if (type === 'select') {
    const s = document.createElement('select');
    for (const o of options) {
      const [v, text] = typeof o === 'string' ? [o, o] : o;
      s.append(new Option(text, v));
    }
    field = s;
  } else {
    const i = document.createElement('input');
    i.type = type;
    Object.assign(i, attributes);
    field = i;
  }
  field.id = id;
  field.value = value;
  const key = `${state.selected}:${id}`;
  let timer: number | undefined;
  const apply = (asTyped: boolean) => {
    clearTimeout(timer);
    state.typing(asTyped ? key : undefined, () => onChange(field.value));
  };
  // A change (blur, Enter) applies what is left and ends the typing burst.
  field.addEventListener('change', () => {
    apply(live || type === 'color');
    state.endBurst();
  });
  // A colour picker says 'input' as it moves (its 'change' may never come from a script); its
  // moves are one undo step, like typing.
  if (type === 'color') field.addEventListener('input', () => apply(true));
  if (live) {
    field.addEventListener('input', () => {
      clearTimeout(timer);
      timer = window.setTimeout(() => apply(true), TYPING_DELAY);
    });
    field.addEventListener('blur', () => state.endBurst());
  }
  wrap.append(l, field);
  return wrap;
}
