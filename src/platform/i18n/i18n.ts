import { escapeText, safe, type Html } from '../html.js';
import type { Catalog, MessageKey } from './catalog.js';
import { ar } from './messages/ar.js';
import { de } from './messages/de.js';
import { en } from './messages/en.js';
import { es } from './messages/es.js';
import { fr } from './messages/fr.js';
import { hi } from './messages/hi.js';
import { ja } from './messages/ja.js';
import { pt } from './messages/pt.js';
import { zh } from './messages/zh.js';

// The languages of the public verification page and of the certificate email, with their message
// catalogs (one file per language under messages/, English the reference). A message is a string
// with {named} placeholders; a key missing from a catalog falls back to English.

export type { Catalog, MessageKey } from './catalog.js';

export const LANGUAGES = ['en', 'fr', 'de', 'es', 'pt', 'ar', 'hi', 'zh', 'ja'] as const;
export type Language = (typeof LANGUAGES)[number];

export const CATALOGS: Record<Language, Catalog> = { en, fr, de, es, pt, ar, hi, zh, ja };

/** Each language's name in itself, for the language switcher. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  fr: 'Français',
  de: 'Deutsch',
  es: 'Español',
  pt: 'Português',
  ar: 'العربية',
  hi: 'हिन्दी',
  zh: '中文',
  ja: '日本語',
};

export function direction(lang: Language): 'rtl' | 'ltr' {
  return lang === 'ar' ? 'rtl' : 'ltr';
}

function template(lang: Language, key: MessageKey): string {
  return CATALOGS[lang][key] ?? en[key];
}

const PLACEHOLDER = /\{(\w+)\}/g;

/** A message as plain text, its placeholders filled with the values as given. */
export function message(lang: Language, key: MessageKey, params: Record<string, string> = {}): string {
  return template(lang, key).replace(PLACEHOLDER, (whole, name: string) => params[name] ?? whole);
}

// HTML of the messages without parameters, made once per language (the verification page is a hot
// route).
const fixedHtml = new Map<Language, Record<string, string>>();

function fixedOf(lang: Language): Record<string, string> {
  let table = fixedHtml.get(lang);
  if (table === undefined) {
    table = {};
    for (const key of Object.keys(en) as MessageKey[]) table[key] = fill(template(lang, key), {});
    fixedHtml.set(lang, table);
  }
  return table;
}

/**
 * A message as an `html` fragment, its placeholders filled with fragments (`html` values such as
 * html`<bdi>${name}</bdi>`): how the pages and the email bodies say their words.
 */
const fixedFragments = new Map<Language, Partial<Record<MessageKey, Html>>>();

export function messageFragment(lang: Language, key: MessageKey, params?: Record<string, Html>): Html {
  if (params === undefined) {
    let table = fixedFragments.get(lang);
    if (table === undefined) fixedFragments.set(lang, (table = {}));
    return (table[key] ??= safe(fixedOf(lang)[key]!));
  }
  const filled: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) filled[name] = value.toString();
  return safe(fill(template(lang, key), filled));
}

/** The messages of one language, as text and as `html` fragments: what a page or an email says. */
export interface Messages {
  text(key: MessageKey, params?: Record<string, string>): string;
  html(key: MessageKey, params?: Record<string, Html>): Html;
}

const messagesByLanguage = new Map<Language, Messages>();

export function messagesIn(lang: Language): Messages {
  let messages = messagesByLanguage.get(lang);
  if (messages === undefined) {
    messages = {
      text: (key, params) => message(lang, key, params),
      html: (key, params) => messageFragment(lang, key, params),
    };
    messagesByLanguage.set(lang, messages);
  }
  return messages;
}

function fill(text: string, params: Record<string, string>): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    const at = m.index ?? 0;
    out += escapeText(text.slice(last, at)) + (params[m[1]!] ?? escapeText(m[0]));
    last = at + m[0].length;
  }
  return out + escapeText(text.slice(last));
}

/** The language of a BCP 47 tag (`fr-CA` -> fr, `zh-Hant-TW` -> zh), or undefined. */
export function languageOf(tag: string | null | undefined): Language | undefined {
  const primary = (tag ?? '').trim().split(/[-_]/)[0]!.toLowerCase();
  return (LANGUAGES as readonly string[]).includes(primary) ? (primary as Language) : undefined;
}

/**
 * The reader's language from an Accept-Language header: the first of its languages, by weight, that
 * the catalogs have. Undefined when none is.
 */
export function fromAcceptLanguage(header: string | undefined): Language | undefined {
  if (!header) return undefined;
  let best: Language | undefined;
  let bestQ = 0;
  for (const part of header.slice(0, 1000).split(',').slice(0, 30)) {
    const [tag, ...rest] = part.split(';');
    const qParam = rest.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)?.[1]).find((q) => q !== undefined);
    const q = qParam === undefined ? 1 : Number(qParam);
    const lang = languageOf(tag);
    if (lang && Number.isFinite(q) && q > bestQ) {
      best = lang;
      bestQ = q;
    }
  }
  return best;
}
