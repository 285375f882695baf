import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Db } from '../../platform/db/db.js';
import { resolveClaimToken } from '../shared/claim-tokens.js';
import { badgeFor, type Badge, type BadgeFormat } from './badges.js';

// The baked badge of a wallet link (decisions 22): GET /claim/{token}/badge.png and .svg. The token
// is the secret (404 unknown, 410 expired, used up, revoked or superseded, as resolveClaimToken
// says); a download counts no claim. Served as a file to save, never shown inline.

/** The headers of a baked badge: a download, and an SVG that could run nothing even if opened. */
export function sendBadge(reply: FastifyReply, badge: Badge) {
  return reply
    .type(badge.contentType)
    .header('Content-Disposition', `attachment; filename="${badge.fileName}"`)
    .header('Content-Security-Policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'private, no-store')
    .header('Referrer-Policy', 'no-referrer')
    .send(badge.body);
}

export function badgeRoutes(app: FastifyInstance, deps: { db: Db; now: () => Date }) {
  for (const format of ['png', 'svg'] as BadgeFormat[]) {
    app.get<{ Params: { token: string } }>(
      `/claim/:token/badge.${format}`,
      { config: { access: { kind: 'verify' } }, schema: { hide: true } },
      async (request, reply) => {
        const target = await resolveClaimToken(deps.db, request.params.token, deps.now());
        return sendBadge(reply, await badgeFor(deps.db, target.certificateId, format));
      },
    );
  }
}
