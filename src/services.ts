import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from './platform/db/db.js';
import { createAccountsService } from './modules/accounts/accounts.service.js';
import { createApiKeysService } from './modules/api-keys/api-keys.service.js';
import { createContractsService } from './modules/contracts/contracts.service.js';
import { createTemplatesService } from './modules/templates/templates.service.js';
import { createUsageService } from './modules/usage/usage.service.js';

export interface ServiceDeps {
  config: Config;
  db: Db;
  logger: Logger;
  now: () => Date;
}

export function createServices(deps: ServiceDeps) {
  return {
    accounts: createAccountsService(deps),
    contracts: createContractsService(deps),
    keys: createApiKeysService(deps),
    templates: createTemplatesService(deps),
    usage: createUsageService(deps),
    startEmailWorker: undefined as undefined | (() => { stop(): Promise<void> }),
    async close() {},
  };
}

export type Services = ReturnType<typeof createServices>;
