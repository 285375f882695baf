// An account as an issuer: its did:web and the URLs of its DID document and status lists, all from
// PUBLIC_BASE_URL (decisions section 18).

export function issuerDid(publicBaseUrl: string, accountId: string): string {
  const url = new URL(publicBaseUrl);
  const port = url.port ? `%3A${url.port}` : '';
  const path = url.pathname
    .split('/')
    .filter((s) => s !== '')
    .map((s) => `:${encodeURIComponent(decodeURIComponent(s))}`)
    .join('');
  return `did:web:${url.hostname}${port}${path}:issuers:${accountId}`;
}

export function didDocumentUrl(publicBaseUrl: string, accountId: string): string {
  return `${publicBaseUrl}/issuers/${accountId}/did.json`;
}

export function statusListUrl(publicBaseUrl: string, accountId: string, n: number): string {
  return `${publicBaseUrl}/issuers/${accountId}/status/${n}`;
}

export function keyMethodId(did: string, keyId: string): string {
  return `${did}#${keyId}`;
}
