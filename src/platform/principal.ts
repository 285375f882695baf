// Who is calling: an authenticated API key (or a signed-in user, the CLI, a worker acting for an
// account) and what its account may do right now. Built by the api-keys module on every request;
// read by access control and the services.
export interface Principal extends Doer {
  keyId: string;
  accountId: string;
  scopes: string[];
  plan: string;
  entitled: boolean;
  partner: boolean;
  emailDelivery: boolean;
  monthlyLimit: number | null;
  /** The account is suspended by an operator: access control answers its keys 403 forbidden. */
  suspended?: boolean;
}

// Who made a change, as the audit trail names it (decisions 21): a dashboard user, an API key (its
// prefix as label), the CLI (the operating-system user as label), the service itself (imports'
// worker, reminders) or an instance operator.
export interface Actor {
  type: 'user' | 'api_key' | 'cli' | 'system' | 'operator';
  id: string | null;
  label: string | null;
}

// Where a change came from: the caller's address and the request's id (none for the CLI, workers).
export interface Origin {
  ip: string | null;
  requestId: string | null;
}

// What every change is made by: the audit trail's actor and origin.
export interface Doer {
  actor: Actor;
  origin?: Origin;
}

export const SYSTEM: Doer = { actor: { type: 'system', id: null, label: null } };

// What access control needs from the key store: undefined for a malformed, unknown or revoked key.
export interface Authenticator {
  authenticate(token: string): Promise<Principal | undefined>;
}
