// The path of a request target as the router reads it, for deciding which rules apply (under
// /api/v1? a /verify/ page?): the query dropped and every escape that decodes, decoded, so that
// /ap%69/v1/usage gets the same headers and limits as /api/v1/usage.
export function routedPath(target: string): string {
  const path = target.split('?')[0] ?? '/';
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
