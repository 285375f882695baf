// Links for sharing a certificate, used by the verification page and the certificate email.

export interface LinkedInCertification {
  /** The certification's name: what was earned (the certificate's title). */
  name: string;
  /** The issuer's name, used when the account has no LinkedIn organisation id. */
  organizationName: string;
  /** The account's LinkedIn organisation (company page) id: digits, or null. */
  organizationId?: string | null;
  issuedAt: string;
  /** The expiry, for certificates that have one. */
  expiresAt?: string | null;
  /** The public verification URL. */
  certUrl: string;
  /** The certificate's code. */
  certId: string;
}

function yearMonth(iso: string | null | undefined): [string, string] | undefined {
  const date = iso ? new Date(iso) : undefined;
  if (!date || Number.isNaN(date.getTime())) return undefined;
  return [String(date.getUTCFullYear()), String(date.getUTCMonth() + 1)];
}

// LinkedIn's "Add to profile" link for a certification
// (https://addtoprofile.linkedin.com/): it opens the visitor's own profile with the form filled in.
// Month and year in UTC, like every date the service shows.
export function linkedInAddToProfileUrl(cert: LinkedInCertification): string {
  const params = new URLSearchParams({ startTask: 'CERTIFICATION_NAME', name: cert.name });
  if (cert.organizationId) params.set('organizationId', cert.organizationId);
  else params.set('organizationName', cert.organizationName);
  const issued = yearMonth(cert.issuedAt);
  if (issued) {
    params.set('issueYear', issued[0]);
    params.set('issueMonth', issued[1]);
  }
  const expires = yearMonth(cert.expiresAt);
  if (expires) {
    params.set('expirationYear', expires[0]);
    params.set('expirationMonth', expires[1]);
  }
  params.set('certUrl', cert.certUrl);
  params.set('certId', cert.certId);
  return `https://www.linkedin.com/profile/add?${params.toString()}`;
}
