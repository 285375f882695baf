import type { en } from './messages/en.js';

export type MessageKey = keyof typeof en;
/** A language's messages; a key it lacks falls back to English. */
export type Catalog = Partial<Record<MessageKey, string>>;
