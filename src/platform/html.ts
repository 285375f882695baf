// Every HTML page and email body of the service is built with the `html` tag: each interpolated
// value is escaped unless it is itself an `html` fragment (Html), and an array interpolates as its
// items one after the other, each escaped the same way. `safe()` marks text that is HTML already
// (constant markup, inline CSS and script whose hashes are in a CSP).
//
// The escaping is that of the escape-html-template-tag package the dashboard used before, for the
// five characters that matter in text and in quoted attribute values (& < > " '); the package also
// wrote / = and ` as entities, which a browser reads back as the same characters. A fragment is a
// string made once, when the tag runs: a fragment kept and shown many times (a language's switcher)
// costs nothing more to show. The public pages and the email bodies keep their markup line for line as
// written (.prettierrc.json does not reformat their templates), so their bytes are what they were.

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

const SPECIAL = /[&<>"']/g;
const HAS_SPECIAL = /[&<>"']/;

/** An HTML fragment: text that is HTML already. */
export class Html {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

/**
 * The escaping of the tag, for code that assembles HTML text piece by piece (the message catalogs'
 * placeholders, platform/i18n): everything else uses the tag.
 */
export function escapeText(value: string): string {
  return HAS_SPECIAL.test(value) ? value.replace(SPECIAL, (c) => ENTITIES[c]!) : value;
}

function interpolated(value: unknown): string {
  if (typeof value === 'string') return escapeText(value);
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(interpolated).join('');
  return escapeText(String(value));
}

export function html(parts: TemplateStringsArray, ...subs: unknown[]): Html {
  let out = parts[0]!;
  for (let i = 0; i < subs.length; i++) out += interpolated(subs[i]) + parts[i + 1]!;
  return new Html(out);
}

export function safe(value: unknown): Html {
  return new Html(String(value));
}

export const EMPTY: Html = html``;

/** The items one after the other, `separator` (HTML already, such as a line break) between them. */
export function join(items: readonly unknown[], separator = ''): Html {
  return new Html(items.map(interpolated).join(separator));
}

/**
 * A long text (a design's JSON with its images, up to 2 MiB) for an element's content: the same
 * escaping as the tag, in one pass (the package's escaper held the event loop for about 170 ms on a
 * 2 MiB design; this one 6 ms).
 */
export function longText(value: string): Html {
  return new Html(escapeText(value));
}

export function when(condition: unknown, fragment: () => Html): Html {
  return condition ? fragment() : EMPTY;
}
