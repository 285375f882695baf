// OID4VCI and OAuth 2.0 refusals in their own format (`{ error, error_description }`, RFC 6749
// section 5.2, RFC 6750 section 3, OID4VCI 1.0 section 8.3.1.2), not the API's envelope: wallets
// read these codes. The routes turn them into answers; anything else goes to the usual handler.

export type Oid4vciErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_token'
  | 'invalid_credential_request'
  | 'unknown_credential_configuration'
  | 'invalid_proof'
  | 'invalid_nonce'
  | 'credential_request_denied'
  // Raised by the OAuth library for headers this service does not ask for (DPoP, client attestation).
  | 'invalid_dpop_proof'
  | 'invalid_client';

const STATUS: Partial<Record<string, number>> = {
  invalid_request: 400,
  invalid_grant: 400,
  unsupported_grant_type: 400,
  invalid_token: 401,
  invalid_credential_request: 400,
  unknown_credential_configuration: 400,
  invalid_proof: 400,
  invalid_nonce: 400,
  credential_request_denied: 400,
};

export class Oid4vciError extends Error {
  readonly status: number;

  constructor(
    readonly code: Oid4vciErrorCode,
    readonly description: string,
  ) {
    super(description);
    this.name = 'Oid4vciError';
    // Codes the libraries raise that are not listed (invalid_dpop_proof, invalid_client): 400.
    this.status = STATUS[code] ?? 400;
  }

  body(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}
