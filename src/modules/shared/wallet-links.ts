import { PNG } from 'pngjs';
import QRCode from 'qrcode';

// The public addresses of a claim token (issue 31, decisions 22), one place for all who print them:
// the certificate email and "Email me the wallet link" (the claim page), the claim page (the VCALM
// interaction URL in its QR code and deep link), the interaction URL's protocols list (the VC API
// exchange and the OID4VCI credential offer).

export function claimPageUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/claim/${token}`;
}

/** The VCALM interaction URL: what a wallet scans; GET gives the protocols it may use. */
export function interactionUrl(publicBaseUrl: string, token: string): string {
  return `${claimPageUrl(publicBaseUrl, token)}/interact?iuv=1`;
}

/** The VC API exchange: POST {} starts it, POST { verifiablePresentation } finishes it. */
export function exchangeUrl(publicBaseUrl: string, token: string): string {
  return `${claimPageUrl(publicBaseUrl, token)}/exchange`;
}

/** The OID4VCI credential offer by reference (the offer itself is served by oid4vci-*.ts). */
export function credentialOfferUri(publicBaseUrl: string, token: string): string {
  return `${claimPageUrl(publicBaseUrl, token)}/oid4vci/offer`;
}

export function credentialOfferDeepLink(publicBaseUrl: string, token: string): string {
  return `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(credentialOfferUri(publicBaseUrl, token))}`;
}

/**
 * A QR code of `text` as a black-on-white PNG, `scale` pixels a module with a 4-module quiet zone
 * (the email's picture, the claim page's image). Synchronous: the email is built in one go.
 */
export function qrPng(text: string, scale = 4): Buffer {
  const { modules } = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], {
    errorCorrectionLevel: 'M',
  });
  const quiet = 4;
  const side = (modules.size + 2 * quiet) * scale;
  const png = new PNG({ width: side, height: side });
  png.data = Buffer.alloc(side * side * 4, 255);
  for (let y = 0; y < side; y++) {
    const row = Math.floor(y / scale) - quiet;
    for (let x = 0; x < side; x++) {
      const col = Math.floor(x / scale) - quiet;
      const dark = row >= 0 && col >= 0 && row < modules.size && col < modules.size && modules.get(row, col);
      if (dark) png.data.fill(0, (y * side + x) * 4, (y * side + x) * 4 + 3);
    }
  }
  return PNG.sync.write(png, { colorType: 0 });
}
