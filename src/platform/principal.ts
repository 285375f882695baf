// Who is calling: an authenticated API key and what its account may do right now. Built by the
// api-keys module on every request; read by access control and the services.
export interface Principal {
  keyId: string;
  accountId: string;
  scopes: string[];
  plan: string;
  entitled: boolean;
  partner: boolean;
  emailDelivery: boolean;
  monthlyLimit: number | null;
}

// What access control needs from the key store: undefined for a malformed, unknown or revoked key.
export interface Authenticator {
  authenticate(token: string): Promise<Principal | undefined>;
}
