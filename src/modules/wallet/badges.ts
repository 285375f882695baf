import type { Queryable } from '../../platform/db/db.js';
import { AppError, NotFoundError } from '../../platform/errors.js';
import { bakePng, bakeSvg } from './badge-baking.js';
import { badgeImageType, findBadgeSource, type BadgeSource } from './badges.repository.js';
import { defaultBadgeSvg } from './default-badge.js';

// A certificate's badge, baked with its frozen credential (Open Badges 3.0): what the claim page,
// "My certificates" and the dashboard's "Download badge" serve. The formats:
// - `svg` always: the template's SVG badge (made safe when it was uploaded), its PNG badge inside
//   an SVG, or the default seal drawn from the design;
// - `png` when the template's badge image is a PNG; otherwise 404 naming `svg` (no SVG is ever
//   rasterised here).

export type BadgeFormat = 'png' | 'svg';

export interface Badge {
  body: Buffer;
  contentType: 'image/png' | 'image/svg+xml';
  /** For Content-Disposition: badge-<code>.png or .svg. */
  fileName: string;
}

/** A badge asked for in a format its template does not have (404, naming the one it has). */
export class BadgeFormatError extends AppError {
  constructor() {
    super(
      'not_found',
      'This badge is an SVG image: its template has no PNG badge. Download badge.svg instead.',
      { available: ['svg'] },
    );
  }
}

// A PNG badge as an SVG: the image at its own size, inside the drawing.
function pngInSvg(png: Buffer): string {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">` +
    `<image width="${width}" height="${height}" href="data:image/png;base64,${png.toString('base64')}"/></svg>`
  );
}

function svgOf(source: BadgeSource): string {
  if (source.image?.mediaType === 'image/svg+xml') return source.image.body.toString('utf8');
  if (source.image?.mediaType === 'image/png') return pngInSvg(source.image.body);
  return defaultBadgeSvg({
    name: source.templateName,
    texts: source.texts,
    background: source.background,
  });
}

/**
 * The certificate's badge in `format` with its frozen credential baked in. NotFoundError when the
 * certificate does not exist (or is a draft) or has no signed credential yet; BadgeFormatError for
 * `png` when its template's badge is not a PNG. Any account's certificate: callers have resolved
 * who may see it (a claim token, "My certificates", the dashboard's account).
 */
export async function badgeFor(db: Queryable, certificateId: string, format: BadgeFormat): Promise<Badge> {
  const source = await findBadgeSource(db, certificateId);
  if (!source) throw new NotFoundError('Certificate');
  if (!source.credential) {
    throw new AppError(
      'not_found',
      'This certificate has no signed credential yet, so there is no badge to bake it into.',
    );
  }
  const fileName = `badge-${source.uniqueCode.replace(/[^A-Za-z0-9_-]/g, '_')}.${format}`;
  if (format === 'png') {
    if (source.image?.mediaType !== 'image/png') throw new BadgeFormatError();
    return { body: bakePng(source.image.body, source.credential), contentType: 'image/png', fileName };
  }
  const svg = bakeSvg(svgOf(source), source.credential.toString('utf8'));
  return { body: Buffer.from(svg, 'utf8'), contentType: 'image/svg+xml', fileName };
}

/**
 * The format to link to for a certificate's badge: `png` when its template's badge is a PNG,
 * otherwise `svg`; undefined when there is no such certificate.
 */
export async function badgeFormat(db: Queryable, certificateId: string): Promise<BadgeFormat | undefined> {
  const type = await badgeImageType(db, certificateId);
  if (type === undefined) return undefined;
  return type === 'image/png' ? 'png' : 'svg';
}
