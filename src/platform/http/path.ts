// The path of a request target as the router reads it, for deciding which rules apply (under
// /api/v1? a /verify/ page?): the query dropped and every escape that decodes, decoded, so that
// /ap%69/v1/usage gets the same headers and limits as /api/v1/usage.
export function routedPath(target: string): string {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  // Most paths have no escape at all: nothing to decode (every request asks this, some twice).
  if (!path.includes('%')) return path;
  return path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

export function isUnderApi(target: string): boolean {
  return /^\/api\/v1(\/|$)/.test(routedPath(target));
}
