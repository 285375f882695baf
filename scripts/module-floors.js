// The domain folders of src/modules/ and what each may import, bottom floor first. Read by
// eslint.config.js (a rule per folder) and scripts/check-structure.js (CI): a folder imports only the
// folders named beside it, so no two import each other and none imports one above it. A new folder
// goes in here, on the floor of the highest folder it needs plus one (docs/architecture.md).
export const MODULE_FLOORS = {
  shared: [],
  usage: [],
  health: [],
  openapi: [],
  accounts: ['shared', 'usage'],
  'api-keys': ['shared', 'accounts'],
  users: ['shared', 'accounts'],
  contracts: ['shared', 'accounts'],
  templates: ['shared', 'accounts'],
  proof: ['shared', 'accounts'],
  emails: ['shared'],
  verify: ['shared'],
  certificates: ['shared', 'usage', 'accounts', 'templates', 'proof', 'emails'],
  imports: ['shared', 'certificates', 'emails'],
};
