// The limits the service states in more than one place (the API's schemas and their description,
// the services, the dashboard, the CSV reader, the command line and their messages), each named
// once here. A new limit that more than one place states goes here too.

/** One mebibyte, for sizes and for saying them ("2.0 MiB"). */
export const MIB = 1024 * 1024;

/** The largest request body, API and dashboard uploads alike, and how messages and docs say it. */
export const BODY_LIMIT = 2 * MIB;
export const BODY_LIMIT_TEXT = '2 MiB';

/** Decisions section 25: a design at most 2 MiB (each distinct image or font counted once). */
export const DESIGN_MAX_BYTES = 2 * MIB;
export const DESIGN_MAX_TEXT = '2 MiB';

/**
 * Recipients of one issue request (batch mode). An import issues its rows a batch of this size at a
 * time, and the dashboard issues a CSV of at most this many rows at once.
 */
export const BATCH_MAX_RECIPIENTS = 500;

/** An email address (the longest path SMTP carries). */
export const EMAIL_MAX_LENGTH = 254;

/** A name: a recipient's (after trimming), an account's, a design's. */
export const NAME_MAX_LENGTH = 200;

/** A string value of a recipient's data. */
export const DATA_VALUE_MAX_LENGTH = 1000;

/**
 * A list field's value (decisions 24): at most this many items (rows of its table, which runs onto
 * as many pages as they need), each an object of at most LIST_ITEM_MAX_KEYS values (strings of at
 * most DATA_VALUE_MAX_LENGTH characters, or numbers).
 */
export const LIST_MAX_ITEMS = 500;
export const LIST_ITEM_MAX_KEYS = 20;

/** The reason of a revocation (public: the verification page shows it). */
export const REASON_MAX_LENGTH = 500;

/** What the front door's code box takes (a code, or a whole verification link). */
export const CODE_INPUT_MAX_LENGTH = 300;

/** The organisation's logo (Settings > Organisation): a PNG or JPEG of at most this many bytes. */
export const LOGO_MAX_BYTES = 512 * 1024;
export const LOGO_MAX_TEXT = '512 KiB';
