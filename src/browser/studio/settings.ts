import type { Design } from '../../pdf/design.schema.js';
import type { Studio } from './context.js';
import { input, type InputOptions } from './inputs.js';
import {
  descriptionProblem,
  nameProblem,
  parseReminders,
  remindersText,
  renewalUrlProblem,
  validityParts,
  validityText,
  VALIDITY_UNITS,
  type ValidityUnit,
} from './settings-values.js';

// The Settings panel (#studio-settings), opened by the toolbar's "Settings" button: the template's
// own values, which are no element on the page (name, descriptions, validity, reminders, renewal
// URL, language, email on issue). Each change is one undo step (typing: one per burst) through
// studio.state.commit, like the properties panel; a value that cannot be used is said beside its
// input and not applied.

/** The settings as last drawn: the panel is drawn again only when they change (undo, JSON). */
const drawnFor = new WeakMap<Studio, string>();
/** While the panel applies a change of its own: its inputs already show it (and keep their words). */
const applying = new WeakSet<Studio>();

function commit(studio: Studio, change: () => void): void {
  applying.add(studio);
  try {
    studio.state.commit(change);
  } finally {
    applying.delete(studio);
  }
}

const settingsOf = (d: Design) =>
  JSON.stringify([
    d.name,
    d.recipientDescription,
    d.description,
    d.validity,
    d.remindBeforeDays,
    d.renewalUrl,
    d.locale,
    d.emailOnIssue,
  ]);

/** Wires the "Settings" button to show and hide the panel (closed at first). */
export function wireSettings(studio: Studio): void {
  const button = document.getElementById('studio-settings-button');
  const panel = document.getElementById('studio-settings');
  if (!button || !panel) return;
  const show = (open: boolean) => {
    panel.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
  };
  show(false);
  button.addEventListener('click', () => {
    const open = panel.hidden;
    show(open);
    if (open) panel.querySelector<HTMLElement>('input, textarea, select')?.focus();
  });
  panel.querySelector('[data-settings-close]')?.addEventListener('click', () => {
    show(false);
    button.focus();
  });
  drawSettings(studio, false);
}

/**
 * Draws the panel's inputs from the design when its settings changed elsewhere (undo, redo, Edit
 * as JSON); not for its own changes, so that a value said to be wrong stays as typed beside it.
 */
export function drawSettings(studio: Studio, live: boolean): void {
  const body = document.getElementById('studio-settings-body');
  if (!body) return;
  const now = settingsOf(studio.state.design);
  const same = drawnFor.get(studio) === now;
  drawnFor.set(studio, now);
  if (live || same || applying.has(studio)) return;
  body.replaceChildren(...settingsParts(studio));
}

function settingsParts(studio: Studio): HTMLElement[] {
  const { state } = studio;
  const d = () => state.design;
  const text = (set: (v: string) => void) => (v: string) => commit(studio, () => set(v));
  return [
    checked(
      studio,
      'Template name',
      d().name,
      'text',
      nameProblem,
      text((v) => (d().name = v)),
      {
        live: true,
        hint: 'The name in the dashboard and the API, and the title of certificates when the design gives none.',
      },
    ),
    checked(
      studio,
      'Description for recipients',
      d().recipientDescription ?? '',
      'textarea',
      descriptionProblem,
      text((v) => {
        if (v.trim() === '') delete d().recipientDescription;
        else d().recipientDescription = v;
      }),
      {
        live: true,
        hint: "What recipients see: the credential's achievement description, shown by wallets and anyone they share it with.",
      },
    ),
    checked(
      studio,
      'Internal note',
      d().description ?? '',
      'textarea',
      descriptionProblem,
      text((v) => {
        if (v.trim() === '') delete d().description;
        else d().description = v;
      }),
      { live: true, hint: 'Internal: only your team sees it, never recipients or wallets.' },
    ),
    validityInputs(studio),
    checked(
      studio,
      'Reminders (days before expiry)',
      remindersText(d().remindBeforeDays),
      'text',
      (v) => {
        const r = parseReminders(v);
        return r.ok ? undefined : r.message;
      },
      (v) => {
        const r = parseReminders(v);
        if (!r.ok) return;
        commit(studio, () => {
          if (r.days.length === 0) delete d().remindBeforeDays;
          else d().remindBeforeDays = r.days;
        });
      },
      { hint: 'The recipient is emailed this many days before the expiry, e.g. 30, 7 (with a validity).' },
    ),
    checked(
      studio,
      'Renewal URL',
      d().renewalUrl ?? '',
      'url',
      renewalUrlProblem,
      text((v) => {
        if (v === '') delete d().renewalUrl;
        else d().renewalUrl = v;
      }),
      { hint: 'An https:// page where recipients renew; the reminders link to it.' },
    ),
    languageSelect(studio),
    emailOnIssue(studio),
  ];
}

/**
 * A labelled input (inputs.ts) with its hint and, beside it, what is wrong with a value typed
 * into it: such a value is not applied.
 */
function checked(
  studio: Studio,
  label: string,
  value: string,
  type: string,
  problem: (v: string) => string | undefined,
  apply: (v: string) => void,
  opts: InputOptions & { hint: string },
): HTMLDivElement {
  const message = document.createElement('p');
  message.className = 'field-error';
  message.setAttribute('aria-live', 'polite');
  const wrap = input(
    studio,
    label,
    value,
    type,
    (v) => {
      const wrong = problem(v);
      say(field, message, wrong);
      if (!wrong) apply(v);
    },
    opts,
  );
  const field = wrap.querySelector('input, textarea, select') as HTMLElement;
  if (type === 'text' || type === 'textarea') field.setAttribute('dir', 'auto');
  const hint = document.createElement('span');
  hint.className = 'hint';
  hint.id = `${field.id}-hint`;
  hint.textContent = opts.hint;
  message.id = `${field.id}-error`;
  field.setAttribute('aria-describedby', `${hint.id} ${message.id}`);
  field.before(hint);
  wrap.append(message);
  return wrap;
}

function say(field: HTMLElement, message: HTMLElement, wrong: string | undefined): void {
  message.textContent = wrong ?? '';
  if (wrong) field.setAttribute('aria-invalid', 'true');
  else field.removeAttribute('aria-invalid');
}

// Validity: a number and a unit (or "Does not expire"); a validity that mixes months and days
// (P1M2D, only from the JSON) shows as it is until a unit is chosen here.
function validityInputs(studio: Studio): HTMLElement {
  const { state } = studio;
  const validity = state.design.validity;
  const parts = validityParts(validity);
  const unitNow = parts?.unit ?? (validity === undefined ? '' : 'custom');
  const box = document.createElement('fieldset');
  const legend = document.createElement('legend');
  legend.textContent = 'Validity';
  const message = document.createElement('p');
  message.className = 'field-error';
  message.id = 'studio-validity-error';
  message.setAttribute('aria-live', 'polite');
  const unitOptions: [string, string][] = [['', 'Does not expire'], ...VALIDITY_UNITS];
  if (unitNow === 'custom') unitOptions.push(['custom', `${validity} (as in the JSON)`]);
  const setValidity = (amount: string, unit: string) => {
    amountField.disabled = unit === '' || unit === 'custom';
    if (unit === '') {
      say(amountField, message, undefined);
      commit(studio, () => delete state.design.validity);
      return;
    }
    if (unit === 'custom') return;
    if (amountField.value === '') amountField.value = amount;
    const next = validityText(amount, unit as ValidityUnit);
    say(amountField, message, next.ok ? undefined : next.message);
    if (next.ok) commit(studio, () => (state.design.validity = next.validity));
  };
  const amount = input(
    studio,
    'Valid for',
    parts ? String(parts.amount) : '',
    'number',
    (v) => setValidity(v, unitField.value),
    {
      live: true,
      attributes: { step: '1', min: '1' },
    },
  );
  const unit = input(
    studio,
    'Validity unit',
    unitNow,
    'select',
    (v) => setValidity(amountField.value === '' ? '1' : amountField.value, v),
    { options: unitOptions },
  );
  const amountField = amount.querySelector('input') as HTMLInputElement;
  const unitField = unit.querySelector('select') as HTMLSelectElement;
  amountField.disabled = unitNow === '' || unitNow === 'custom';
  amountField.setAttribute('aria-describedby', message.id);
  const hint = document.createElement('span');
  hint.className = 'hint';
  hint.textContent =
    'How long a certificate stays valid after its issue; its expiry date is frozen on it. A certificate given its own expiry keeps that.';
  box.className = 'studio-validity';
  box.append(legend, hint, amount, unit, message);
  return box;
}

// The language of the certificate's dates and numbers (and of its email): the languages of the
// verification page (data-locales), and the design's own tag when it is another one.
function languageSelect(studio: Studio): HTMLElement {
  const { state } = studio;
  const tags = (studio.root.dataset.locales ?? 'en').split(',');
  const current = state.design.locale ?? 'en';
  if (!tags.includes(current)) tags.unshift(current);
  const wrap = input(
    studio,
    'Language',
    current,
    'select',
    (v) => commit(studio, () => (state.design.locale = v)),
    {
      options: tags.map((t) => [t, languageName(t)]),
    },
  );
  const field = wrap.querySelector('select') as HTMLSelectElement;
  const hint = document.createElement('span');
  hint.className = 'hint';
  hint.textContent = "What the certificate's dates and numbers are written in, and its email.";
  field.before(hint);
  return wrap;
}

/** "French (français)"; the tag itself where the browser has no name for it. */
function languageName(tag: string): string {
  try {
    const english = new Intl.DisplayNames(['en'], { type: 'language' }).of(tag) ?? tag;
    const own = new Intl.DisplayNames([tag], { type: 'language' }).of(tag) ?? tag;
    return own === english ? english : `${english} (${own})`;
  } catch {
    return tag;
  }
}

function emailOnIssue(studio: Studio): HTMLElement {
  const { state } = studio;
  const wrap = document.createElement('div');
  const label = document.createElement('label');
  label.className = 'check';
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.id = 'studio-email-on-issue';
  box.checked = state.design.emailOnIssue === true;
  box.addEventListener('change', () =>
    commit(studio, () => {
      if (box.checked) state.design.emailOnIssue = true;
      else delete state.design.emailOnIssue;
    }),
  );
  const hint = document.createElement('span');
  hint.className = 'hint';
  hint.id = `${box.id}-hint`;
  hint.textContent = 'Each certificate is emailed to its recipient, with the PDF, when it is issued.';
  box.setAttribute('aria-describedby', hint.id);
  label.append(box, ' Email on issue');
  wrap.append(label, hint);
  return wrap;
}
