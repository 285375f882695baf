import { createHash } from 'node:crypto';
import { Type } from 'typebox';
import type { FileChecker } from '../../pdf/file-checker.js';
import type { Db, Queryable } from '../../platform/db/db.js';
import { NotFoundError, ValidationError, type Issue } from '../../platform/errors.js';
import { LANGUAGES } from '../../platform/i18n/i18n.js';
import { EMAIL_MAX_LENGTH, LOGO_MAX_BYTES, LOGO_MAX_TEXT, NAME_MAX_LENGTH } from '../../platform/limits.js';
import type { Doer } from '../../platform/principal.js';
import { hasForbiddenCharacter, plainTextProblem } from '../../platform/text.js';
import { compileBodyValidator } from '../../platform/validation.js';
import { recordAudit } from '../audit/audit-log.js';
import { imageType, sniff } from '../shared/image-type.js';
import * as repo from './accounts.repository.js';

// The organisation's profile (issue 29, decisions 21): its display name, website, contact email,
// logo and default language, changed by Settings > Organisation and `certsvc account update`
// through updateProfile, which checks every value, changes the account and records
// `account.updated` (each changed field as { from, to }; the logo as its size and hash) in one
// transaction. A new name applies to what is issued from then on (`onRenamed`: the PDF signing
// certificate that names the organisation is replaced in the same transaction).

/** What a door asks to change; a field left undefined keeps its value. */
export interface ProfileInput {
  name?: string;
  /** An https URL; empty or null: none. */
  website?: string | null;
  /** Empty or null: none. */
  contactEmail?: string | null;
  defaultLanguage?: string;
  /** A PNG or JPEG; null removes the logo. */
  logo?: Buffer | null;
}

export interface ProfileDeps {
  db: Db;
  now: () => Date;
  checker?: () => FileChecker;
  /** Called in the rename's transaction (the PDF signing certificate names the organisation). */
  onRenamed?: (tx: Queryable, accountId: string) => Promise<void>;
}

const WEBSITE_MAX_LENGTH = 2000;
const validEmail = compileBodyValidator(Type.String({ format: 'email', maxLength: EMAIL_MAX_LENGTH }));

function checkName(name: string, issues: Issue[]): string | undefined {
  const text = name.trim();
  const problem = plainTextProblem(text, NAME_MAX_LENGTH);
  if (problem) {
    issues.push({ path: ['name'], message: `The name ${problem}` });
    return undefined;
  }
  return text;
}

function checkWebsite(input: string | null, issues: Issue[]): string | null {
  const text = (input ?? '').trim();
  if (text === '') return null;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || text.length > WEBSITE_MAX_LENGTH || hasForbiddenCharacter(text) || url.hostname === '') {
    issues.push({ path: ['website'], message: `The website "${text}" is not a web address (https://...)` });
    return null;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') {
    issues.push({ path: ['website'], message: `The website must be an https:// address, not "${text}"` });
    return null;
  }
  return url.href;
}

function checkEmail(input: string | null, issues: Issue[]): string | null {
  const text = (input ?? '').trim();
  if (text === '') return null;
  if (!validEmail(text)) {
    issues.push({ path: ['contactEmail'], message: `The contact email "${text}" is not an email address` });
    return null;
  }
  return text;
}

function checkLanguage(input: string, issues: Issue[]): string | undefined {
  if ((LANGUAGES as readonly string[]).includes(input)) return input;
  issues.push({
    path: ['defaultLanguage'],
    message: `The default language must be one of ${LANGUAGES.join(', ')}`,
  });
  return undefined;
}

// The logo's bytes are bounded before anything reads them, typed by their content, then checked by
// the code that would draw them (the file checker's threads) as the studio's uploads are.
async function checkLogo(deps: ProfileDeps, bytes: Buffer, issues: Issue[]) {
  const refuse = (message: string) => {
    issues.push({ path: ['logo'], message });
    return undefined;
  };
  if (bytes.length > LOGO_MAX_BYTES) {
    return refuse(`The logo is ${Math.ceil(bytes.length / 1024)} KiB: it may be at most ${LOGO_MAX_TEXT}`);
  }
  const type = imageType(bytes);
  if (!type) {
    return refuse(`The logo is not a PNG or JPEG image: its content is ${sniff(bytes)}`);
  }
  if (!deps.checker) throw new Error('no file checker: the logo cannot be checked');
  const checked = await deps.checker().image(type, bytes);
  if (!checked.ok) return refuse(`The ${type.toUpperCase()} logo cannot be used: it ${checked.message}`);
  return { bytes, type: `image/${type}`, sha256: createHash('sha256').update(bytes).digest('hex') };
}

async function checkInput(deps: ProfileDeps, input: ProfileInput) {
  const issues: Issue[] = [];
  const change: repo.ProfileChange = {};
  if (input.name !== undefined) change.name = checkName(input.name, issues);
  if (input.website !== undefined) change.website = checkWebsite(input.website, issues);
  if (input.contactEmail !== undefined) change.contactEmail = checkEmail(input.contactEmail, issues);
  if (input.defaultLanguage !== undefined)
    change.defaultLanguage = checkLanguage(input.defaultLanguage, issues);
  if (input.logo === null) change.logo = null;
  else if (input.logo !== undefined) change.logo = await checkLogo(deps, input.logo, issues);
  if (issues.length > 0) {
    throw new ValidationError(issues, issues.map((i) => i.message).join('. '));
  }
  return change;
}

function logoSummary(size: number | null | undefined, sha256: string | null | undefined) {
  return sha256 ? { size, sha256 } : null;
}

// What the change changes, field by field as { from, to }: nothing when it changes nothing.
function changesOf(before: repo.AccountRow, change: repo.ProfileChange): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  const compare = (field: string, from: unknown, to: unknown) => {
    if (to !== undefined && to !== from) changes[field] = { from, to };
  };
  compare('name', before.name, change.name);
  compare('website', before.website, change.website);
  compare('contactEmail', before.contact_email, change.contactEmail);
  compare('defaultLanguage', before.default_language ?? 'en', change.defaultLanguage);
  if (change.logo !== undefined && (change.logo?.sha256 ?? null) !== before.logo_sha256) {
    changes.logo = {
      from: logoSummary(before.logo_size, before.logo_sha256),
      to: logoSummary(change.logo?.bytes.length, change.logo?.sha256),
    };
  }
  return changes;
}

/** Checks the values, changes the account and records `account.updated`, all or nothing. */
export async function updateProfile(
  deps: ProfileDeps,
  accountId: string,
  input: ProfileInput,
  doer: Doer,
): Promise<repo.AccountRow> {
  const change = await checkInput(deps, input);
  return deps.db.transaction(async (tx) => {
    const before = await repo.lockAccount(tx, accountId);
    if (!before) throw new NotFoundError('Account');
    const changes = changesOf(before, change);
    if (Object.keys(changes).length === 0) return before;
    const after = await repo.updateProfile(tx, accountId, change);
    if (changes.name) await deps.onRenamed?.(tx, accountId);
    await recordAudit(
      tx,
      accountId,
      doer,
      [{ action: 'account.updated', target: { type: 'account', id: accountId }, changes }],
      deps.now(),
    );
    return after;
  });
}
