// The HTTP server's timeouts (config.ts reads them from the environment; edge.ts applies them),
// apart from the edge so that reading the configuration does not load the server.

export interface Timeouts {
  // Whole request (headers and body) must arrive within this; then 408 and the connection closes.
  requestMs: number;
  // Headers must arrive within this.
  headersMs: number;
  // An idle keep-alive connection is closed after this.
  keepAliveMs: number;
  // How often the server looks for requests past their time.
  checkEveryMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  requestMs: 30_000,
  headersMs: 10_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
};
