import { html, type Html } from '../../platform/html.js';
import type { ClaimRecord } from '../../modules/wallet/claims.repository.js';
import { dateTime } from '../html.js';
import { emptyState, table } from './components.js';

// The certificate page's "Wallet claims" (issue 31): every time the recipient added the certificate
// to a wallet, newest first: when, the wallet's holder DID, the protocol and the format.
export function walletClaimsSection(claims: ClaimRecord[]): Html {
  const row = (c: ClaimRecord) =>
    html`<tr>
      <td class="small">${dateTime(c.claimedAt.toISOString())}</td>
      <td class="small"><code>${c.holderDid}</code></td>
      <td>${c.protocol === 'vcapi' ? 'VC API' : 'OpenID4VCI'}</td>
      <td><code>${c.format}</code></td>
    </tr>`;
  return html`<section class="card" aria-labelledby="claims-title">
    <h2 id="claims-title">Wallet claims</h2>
    ${
      claims.length === 0
        ? emptyState('Not added to a wallet yet.')
        : table({
            id: 'wallet-claims',
            columns: ['When', 'Holder', 'Protocol', 'Format'],
            rows: claims.map(row),
          })
    }
  </section>`;
}
