import type { Db } from '../platform/db/db.js';
import type { RateLimitStore } from '../platform/rate-limit/rate-limit.store.js';
import type { Services } from '../services.js';

// What the operators' console is built from: the same services as the other doors, the plans of
// the configuration (to choose from), and its own sessions.
export interface AdminDeps {
  db: Db;
  services: Services;
  rateLimitStore: RateLimitStore;
  plans: string[];
  now: () => Date;
}
