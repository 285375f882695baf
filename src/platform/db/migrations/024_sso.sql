-- Single sign-on with OpenID Connect, per account (issue 29, decisions 21). The client secret is
-- sealed under SIGNING_KEYS_SECRET like the signing keys (AES-256-GCM, the account's id in the
-- associated data). password_sign_in off refuses the password sign-in of every user of the account
-- but its owners.
CREATE TABLE account_sso (
  account_id        uuid PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  issuer_url        text NOT NULL,
  client_id         text NOT NULL,
  client_secret     bytea NOT NULL,
  allowed_domains   text[] NOT NULL,
  default_role      text NOT NULL CHECK (default_role IN ('admin', 'issuer', 'designer', 'viewer')),
  role_claim        text,
  role_map          jsonb NOT NULL DEFAULT '{}',
  password_sign_in  boolean NOT NULL DEFAULT true,
  updated_at        timestamptz NOT NULL
);

-- An email domain signs in through one account's provider at most: the sign-in page finds the
-- account from the email, and no account can route another's people to its own provider.
CREATE TABLE sso_domains (
  domain      text PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES account_sso(account_id) ON DELETE CASCADE
);
CREATE INDEX sso_domains_account ON sso_domains (account_id);
