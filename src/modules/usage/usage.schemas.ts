import { Type, type Static } from 'typebox';
import { Timestamp } from '../../platform/http/schemas.js';

export const Usage = Type.Object(
  {
    tier: Type.String({ description: 'Plan name of the account, e.g. Business' }),
    certificates: Type.Object({
      limit: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Null on partner accounts (contractual quota)',
      }),
      used: Type.Integer({ description: 'Certificates issued in the current period (UTC calendar month)' }),
      remaining: Type.Union([Type.Integer(), Type.Null()], { description: 'Null on partner accounts' }),
      resetAt: Timestamp,
    }),
  },
  { title: 'Usage' },
);

export type UsageView = Static<typeof Usage>;

export const USAGE_EXAMPLE: UsageView = {
  tier: 'Business',
  certificates: { limit: 2000, used: 154, remaining: 1846, resetAt: '2026-12-01T00:00:00.000Z' },
};
