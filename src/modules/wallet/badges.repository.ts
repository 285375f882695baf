import type { Queryable } from '../../platform/db/db.js';

// What a certificate's baked badge is made of: its frozen credential, its template's badge image
// (migration 035) or, without one, what the default seal is drawn from (the template's name and the
// colours of the design the certificate was issued with).

export interface BadgeSource {
  uniqueCode: string;
  credential: Buffer | null;
  image: { mediaType: 'image/png' | 'image/svg+xml'; body: Buffer } | null;
  templateName: string;
  texts: { color?: unknown; size?: unknown }[];
  background: unknown;
}

export async function findBadgeSource(
  db: Queryable,
  certificateId: string,
): Promise<BadgeSource | undefined> {
  const { rows } = await db.query<{
    unique_code: string;
    credential: Buffer | null;
    media_type: 'image/png' | 'image/svg+xml' | null;
    image: Buffer | null;
    template_name: string;
    texts: { color?: unknown; size?: unknown }[] | null;
    background: unknown;
  }>(
    `SELECT c.unique_code, cr.body AS credential, b.media_type, b.body AS image, t.name AS template_name,
            d.texts, d.background
       FROM certificates c
       JOIN templates t ON t.id = c.template_id
       LEFT JOIN template_versions v ON v.template_id = c.template_id AND v.version = c.template_version
       LEFT JOIN template_badges b ON b.template_id = c.template_id
       LEFT JOIN credentials cr ON cr.certificate_id = c.id
       CROSS JOIN LATERAL (
         SELECT (SELECT jsonb_agg(jsonb_build_object('color', e->'color', 'size', e->'size'))
                   FROM jsonb_array_elements(COALESCE(v.design, t.design)->'elements') e
                  WHERE e->>'type' = 'text') AS texts,
                COALESCE(v.design, t.design)->'background'->'color' AS background
       ) d
      WHERE c.id = $1 AND c.status <> 'Draft'`,
    [certificateId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    uniqueCode: row.unique_code,
    credential: row.credential,
    image: row.media_type && row.image ? { mediaType: row.media_type, body: row.image } : null,
    templateName: row.template_name,
    texts: row.texts ?? [],
    background: row.background,
  };
}

/** The media type of the certificate's template's badge image, or null (the default seal, an SVG). */
export async function badgeImageType(
  db: Queryable,
  certificateId: string,
): Promise<string | null | undefined> {
  const { rows } = await db.query<{ media_type: string | null }>(
    `SELECT b.media_type FROM certificates c LEFT JOIN template_badges b ON b.template_id = c.template_id
      WHERE c.id = $1 AND c.status <> 'Draft'`,
    [certificateId],
  );
  return rows[0] ? rows[0].media_type : undefined;
}
