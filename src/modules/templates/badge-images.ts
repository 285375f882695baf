import type { FileChecker } from '../../pdf/pdf-renderer.js';
import type { Db } from '../../platform/db/db.js';
import { ValidationError } from '../../platform/errors.js';
import { MIB } from '../../platform/limits.js';
import type { Doer } from '../../platform/principal.js';
import { SVG_MAX_BYTES } from '../../platform/svg/safe-svg.js';
import { recordAudit } from '../audit/audit-log.js';
import { imageType, sniff } from '../shared/image-type.js';
import * as repo from './badge-images.repository.js';
import { templateStore } from './template-store.js';

// A template's badge image (issue 31): the picture a baked badge carries the credential in (Open
// Badges 3.0 baking takes PNG or SVG only). Uploaded in the studio's Settings panel and stored at
// once, beside the design's versions. Untrusted bytes are bounded before they are read and read in
// the file checker's threads (decisions 25): a PNG is held to the image checks every upload passes;
// an SVG is rebuilt from a safe subset (platform/svg/safe-svg.ts), or refused naming why, and only
// the rebuilt drawing is stored.

export const BADGE_PNG_MAX_BYTES = 2 * MIB;

function refuse(message: string): never {
  throw new ValidationError([{ path: ['file'], message }], message);
}

const looksLikeXml = (bytes: Buffer) => /^(\uFEFF)?\s*</.test(bytes.subarray(0, 64).toString('utf8'));

export function createBadgeImagesService(deps: { db: Db; checker: () => FileChecker; now: () => Date }) {
  const { db } = deps;
  const store = templateStore(db);

  // The bytes to store and their type, after the checks; a refusal is a 422 naming the problem.
  async function checked(bytes: Buffer): Promise<{ mediaType: repo.BadgeMediaType; body: Buffer }> {
    if (bytes.length === 0) refuse('The file is empty.');
    const type = imageType(bytes);
    if (type === 'png') {
      if (bytes.length > BADGE_PNG_MAX_BYTES) {
        refuse(
          `The PNG badge is ${(bytes.length / MIB).toFixed(1)} MiB: a badge image may be at most 2 MiB.`,
        );
      }
      const result = await deps.checker().image('png', bytes);
      if (!result.ok) refuse(`The PNG image cannot be used: it ${result.message}.`);
      return { mediaType: 'image/png', body: bytes };
    }
    if (type === 'jpeg') {
      refuse('A badge is a PNG or SVG image (a JPEG cannot carry a baked credential): export it as PNG.');
    }
    if (!looksLikeXml(bytes)) {
      refuse(`The file is not a PNG or SVG image: its content is ${sniff(bytes)}, whatever its name says.`);
    }
    if (bytes.length > SVG_MAX_BYTES) {
      refuse(`The SVG file is ${Math.ceil(bytes.length / 1024)} KB: an SVG badge may be at most 512 KB.`);
    }
    const result = await deps.checker().svg(bytes);
    if (!result.ok) refuse(`The SVG file cannot be used: it ${result.message}.`);
    return { mediaType: 'image/svg+xml', body: Buffer.from(result.svg, 'utf8') };
  }

  return {
    /** Checks and stores the template's badge image (replacing the one before). */
    async upload(doer: Doer, accountId: string, templateId: string, bytes: Buffer) {
      await store.owned(accountId, templateId);
      const image = await checked(bytes);
      const now = deps.now();
      await db.transaction(async () => {
        await repo.upsertBadgeImage(db, { accountId, templateId, ...image, now });
        const event = {
          action: 'template.badge_changed' as const,
          target: { type: 'template', id: templateId },
          changes: { badge: image.mediaType },
        };
        await recordAudit(db, accountId, doer, [event], now);
      });
      return { mediaType: image.mediaType };
    },

    /** Removes the template's badge image: its badges are the default seal again. */
    async remove(doer: Doer, accountId: string, templateId: string): Promise<void> {
      await store.owned(accountId, templateId);
      const now = deps.now();
      await db.transaction(async () => {
        if (!(await repo.deleteBadgeImage(db, accountId, templateId))) return;
        const event = {
          action: 'template.badge_changed' as const,
          target: { type: 'template', id: templateId },
          changes: { badge: null },
        };
        await recordAudit(db, accountId, doer, [event], now);
      });
    },

    /** The stored image (the studio's preview), or undefined. */
    read(accountId: string, templateId: string) {
      return repo.findBadgeImage(db, accountId, templateId);
    },
  };
}

export type BadgeImagesService = ReturnType<typeof createBadgeImagesService>;
