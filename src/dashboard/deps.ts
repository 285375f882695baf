import type { Db } from '../platform/db/db.js';
import type { RateLimitStore } from '../platform/rate-limit/rate-limit.store.js';
import type { Services } from '../services.js';

// What the dashboard is built from: the same services as the API, plus its own session storage.
export interface DashboardDeps {
  db: Db;
  services: Services;
  rateLimitStore: RateLimitStore;
  now: () => Date;
  /** The service's public address, for links in emails (a password reset link). */
  publicBaseUrl: string;
  /** Seconds between the studio's autosaves of unsaved edits (config STUDIO_AUTOSAVE_S; 30 when absent). */
  studioAutosaveS?: number;
}
