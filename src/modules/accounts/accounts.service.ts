import type { Config } from '../../config.js';
import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import type { Doer, Principal } from '../../platform/principal.js';
import { rowView } from '../../platform/row-view.js';
import { SCOPES } from '../shared/key-format.js';
import { isoDate, periodEnd, periodStart } from '../usage/period.js';
import * as repo from './accounts.repository.js';
import { updateProfile, type ProfileDeps, type ProfileInput } from './account-profile.js';
import { recordAudit } from '../audit/audit-log.js';
import { NAME_MAX_LENGTH } from '../../platform/limits.js';

export interface AccountView {
  id: string;
  name: string;
  plan: string;
  monthlyLimit: number | null;
  createdAt: string;
  /** When an operator suspended the account (its keys answer 403, its users cannot sign in); null: active. */
  suspendedAt: string | null;
  settings: AccountSettings;
  /** The organisation's profile (Settings > Organisation, `account update`). */
  website: string | null;
  contactEmail: string | null;
  /** The language of the verification page when the visitor's browser asks for none we have. */
  defaultLanguage: string;
  /** The logo (PNG or JPEG) as stored: its type, size and hash; null: none. */
  logo: { type: string; size: number; sha256: string } | null;
}

// What an account chooses about its certificates' public life (issue 19).
export interface AccountSettings {
  /** LinkedIn organisation id (digits) that "Add to LinkedIn profile" links name; null: by name. */
  linkedinOrganizationId: string | null;
  /** Whether the public verification page offers the PDF for download. */
  publicDownload: boolean;
}

// The settings that changed, each as { old, new } (an audit event's summary).
function settingsChanges(before: AccountSettings, after: AccountSettings) {
  const changes: Record<string, { old: unknown; new: unknown }> = {};
  for (const key of Object.keys(after) as (keyof AccountSettings)[]) {
    if (before[key] !== after[key]) changes[key] = { old: before[key], new: after[key] };
  }
  return changes;
}

export interface AccountOverview extends AccountView {
  apiAccess: boolean;
  emailDelivery: boolean;
  contract: { id: string; startsAt: string; endsAt: string | null; emailDelivery: boolean } | null;
  keys: { active: number; revoked: number };
  usage: { used: number; limit: number | null; remaining: number | null; resetAt: string };
}

function overview(row: repo.AccountOverviewRow, now: Date): AccountOverview {
  // A partner contract in force lifts the limit and grants API access (docs/api.md, Access).
  const partner = row.contract_id !== null;
  const limit = partner ? null : row.effective_limit;
  return {
    ...view(row),
    apiAccess: partner || row.api_access,
    emailDelivery: partner ? row.contract_email_delivery === true : row.plan_email_delivery,
    contract: partner
      ? {
          id: row.contract_id!,
          startsAt: row.contract_starts_at!.toISOString(),
          endsAt: row.contract_ends_at?.toISOString() ?? null,
          emailDelivery: row.contract_email_delivery === true,
        }
      : null,
    keys: { active: row.active_keys, revoked: row.revoked_keys },
    usage: {
      used: row.used,
      limit,
      remaining: limit === null ? null : Math.max(0, limit - row.used),
      resetAt: periodEnd(now).toISOString(),
    },
  };
}

function view(row: repo.AccountRow): AccountView {
  return {
    ...rowView(row, ['id', 'name', 'plan', 'monthly_limit', 'created_at', 'suspended_at']),
    settings: { linkedinOrganizationId: row.linkedin_organization_id, publicDownload: row.public_download },
    website: row.website,
    contactEmail: row.contact_email,
    defaultLanguage: row.default_language ?? 'en',
    logo: row.logo_sha256 ? { type: row.logo_type!, size: row.logo_size!, sha256: row.logo_sha256 } : null,
  };
}

// The id of a LinkedIn company page: digits, as in linkedin.com/company/<id>/admin. Also taken
// from the whole admin URL people copy. Empty: none.
export function linkedinOrganizationId(input: string | null): string | null {
  const text = (input ?? '').trim();
  if (text === '' || text.toLowerCase() === 'none') return null;
  const id = /^(?:https?:\/\/(?:www\.)?linkedin\.com\/company\/)?(\d{1,19})\/?(?:admin\/?.*)?$/i.exec(
    text,
  )?.[1];
  if (!id) {
    throw new ValidationError(
      [{ path: ['linkedinOrganizationId'], message: 'must be the digits of a LinkedIn company page id' }],
      'The LinkedIn organisation id must be the number of the company page (linkedin.com/company/<digits>)',
    );
  }
  return id;
}

export function createAccountsService(
  deps: { db: Db; config: Config; now: () => Date } & Pick<ProfileDeps, 'checker' | 'onRenamed'>,
) {
  const { db } = deps;
  const planNames = deps.config.plans.map((p) => p.name);

  function checkPlan(plan: string): string {
    const match = planNames.find((p) => p.toLowerCase() === plan.toLowerCase());
    if (!match) {
      throw new ValidationError(
        [{ path: ['plan'], message: `unknown plan "${plan}"; known: ${planNames.join(', ')}` }],
        `Unknown plan "${plan}" (known: ${planNames.join(', ')})`,
      );
    }
    return match;
  }

  async function changeSuspension(id: string, at: Date | null, already: string): Promise<repo.AccountRow> {
    const row = await repo.setSuspended(db, id, at);
    if (row) return row;
    if (!(await repo.findAccount(db, id))) throw new NotFoundError('Account');
    throw new ConflictError(already);
  }

  return {
    async create(input: { name: string; plan: string; monthlyLimit?: number | null }): Promise<AccountView> {
      const name = input.name.trim();
      if (name.length < 1 || name.length > NAME_MAX_LENGTH) {
        throw new ValidationError(
          [{ path: ['name'], message: `must be 1 to ${NAME_MAX_LENGTH} characters` }],
          `The account name must be 1 to ${NAME_MAX_LENGTH} characters`,
        );
      }
      const row = await repo.insertAccount(db, {
        id: uuidv7(),
        name,
        plan: checkPlan(input.plan),
        monthlyLimit: input.monthlyLimit ?? null,
      });
      return view(row);
    },

    async setPlan(id: string, plan: string): Promise<AccountView> {
      const row = await repo.updatePlan(db, id, checkPlan(plan));
      if (!row) throw new NotFoundError('Account');
      return view(row);
    },

    // The account as a caller without a key (a dashboard user) acts for it: every scope, and the
    // plan's or the contract's quota and email delivery, read now, as key authentication reads them.
    // `keyId` names the caller in rate limits and idempotency records ("user:<id>", "import:<id>").
    async actingPrincipal(accountId: string, keyId: string, doer: Doer): Promise<Principal> {
      const row = await repo.findEntitlement(db, accountId, deps.now());
      if (!row) throw new NotFoundError('Account');
      const partner = row.contract_id !== null;
      return {
        keyId,
        ...doer,
        accountId,
        scopes: [...SCOPES],
        plan: row.plan,
        entitled: row.api_access || partner,
        partner,
        emailDelivery: partner ? row.contract_email_delivery === true : row.plan_email_delivery,
        monthlyLimit: partner ? null : row.monthly_limit,
        suspended: row.suspended,
      };
    },

    // An operator's suspension (decisions 21): the account's keys answer 403 and its users cannot
    // sign in until it is resumed. Suspending a suspended account (or resuming an active one) is a
    // conflict, so that the audit trail never records a change that did not happen.
    async suspend(id: string): Promise<AccountView> {
      return view(await changeSuspension(id, deps.now(), 'The account is already suspended'));
    },

    async resume(id: string): Promise<AccountView> {
      return view(await changeSuspension(id, null, 'The account is not suspended'));
    },

    // The sharing settings; an `account.updated` event names each field that changed, old and new.
    async updateSettings(
      doer: Doer,
      id: string,
      input: { linkedinOrganizationId?: string | null; publicDownload?: boolean },
    ): Promise<AccountView> {
      const settings = {
        publicDownload: input.publicDownload,
        linkedinOrganizationId:
          input.linkedinOrganizationId === undefined
            ? undefined
            : linkedinOrganizationId(input.linkedinOrganizationId),
      };
      return db.transaction(async (tx) => {
        const before = await repo.findAccount(tx, id);
        const row = before && (await repo.updateSettings(tx, id, settings));
        if (!before || !row) throw new NotFoundError('Account');
        const changes = settingsChanges(view(before).settings, view(row).settings);
        if (Object.keys(changes).length > 0) {
          const target = { type: 'account', id };
          await recordAudit(tx, id, doer, [{ action: 'account.updated', target, changes }], deps.now());
        }
        return view(row);
      });
    },

    // The organisation's profile, every door's (decisions 21): checked, changed and recorded as
    // `account.updated` in one transaction (account-profile.ts).
    async updateProfile(id: string, input: ProfileInput, doer: Doer): Promise<AccountView> {
      return view(await updateProfile(deps, id, input, doer));
    },

    async logo(id: string): Promise<{ bytes: Buffer; type: string; sha256: string }> {
      const row = await repo.findLogo(db, id);
      if (!row) throw new NotFoundError('Logo');
      return { bytes: row.logo, type: row.logo_type, sha256: row.logo_sha256 };
    },

    async list(): Promise<AccountView[]> {
      return (await repo.listAccounts(db)).map(view);
    },

    /** A page (1-based) of every account's overview, newest first, `perPage` at a time. */
    async overviews(page: number, perPage: number): Promise<{ accounts: AccountOverview[]; total: number }> {
      const now = deps.now();
      const { rows, total } = await repo.accountOverviews(db, {
        now,
        period: isoDate(periodStart(now)),
        limit: perPage,
        offset: (page - 1) * perPage,
      });
      return { accounts: rows.map((row) => overview(row, now)), total };
    },

    async overview(id: string): Promise<AccountOverview> {
      const now = deps.now();
      const row = await repo.accountOverview(db, { id, now, period: isoDate(periodStart(now)) });
      if (!row) throw new NotFoundError('Account');
      return overview(row, now);
    },

    async get(id: string): Promise<AccountView> {
      const row = await repo.findAccount(db, id);
      if (!row) throw new NotFoundError('Account');
      return view(row);
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
