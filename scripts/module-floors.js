// The domain folders of src/modules/ and what each may import, bottom floor first. Read by
// eslint.config.js (a rule per folder) and scripts/check-structure.js (CI): a folder imports only the
// folders named beside it, so no two import each other and none imports one above it. A new folder
// goes in here, on the floor of the highest folder it needs plus one (docs/architecture.md).
export const MODULE_FLOORS = {
  shared: [],
  audit: [],
  usage: [],
  health: [],
  openapi: [],
  accounts: ['shared', 'audit', 'usage'],
  'api-keys': ['shared', 'audit', 'accounts'],
  users: ['shared', 'audit', 'accounts'],
  contracts: ['shared', 'audit', 'accounts'],
  templates: ['shared', 'audit', 'accounts'],
  proof: ['shared', 'audit', 'accounts'],
  sso: ['shared', 'audit', 'accounts', 'users'],
  emails: ['shared'],
  verify: ['shared'],
  certificates: ['shared', 'audit', 'usage', 'accounts', 'templates', 'proof', 'emails'],
  imports: ['shared', 'audit', 'certificates', 'emails'],
  operators: ['shared', 'audit', 'accounts', 'contracts', 'users'],
  // Issue 31: the recipient's side. wallet: claim pages, VC API and OID4VCI exchanges, baked badges;
  // recipients: "My certificates" and correction requests (approving one is a reissue).
  wallet: ['shared', 'audit', 'accounts', 'proof', 'emails', 'certificates'],
  recipients: ['shared', 'audit', 'accounts', 'proof', 'emails', 'certificates', 'wallet'],
};
