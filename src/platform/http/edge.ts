import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../errors.js';
import { uuidv7 } from '../ids.js';
import { htmlErrorsFor, sendError, type HtmlErrors } from './error-handler.js';
import type { Timeouts } from './timeouts.js';

// The edge of the HTTP server: what happens before a request reaches a route. Malformed HTTP, URLs
// that cannot be decoded and stalled clients all get an answer in the error envelope (or the HTML
// page under /verify/) with X-Request-Id, and never hold a connection for long.

// Longer than any URL the header limit lets through: an over-long id reaches its route and is a 422
// at its path instead of a 414.
const MAX_PARAM_LENGTH = 65_536;

function clientErrorAnswer(error: NodeJS.ErrnoException): { status: number; code: string; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: 'request_timeout', message: 'The request did not arrive in time' };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      code: 'headers_too_large',
      message: 'The request line and headers are larger than 16 KiB',
    };
  }
  return { status: 400, code: 'bad_request', message: 'The request is not valid HTTP/1.1' };
}

// Requests that Node's HTTP parser refuses never become Fastify requests: answered here.
function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: error }, 'client error');
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  // Bytes that do not parse after a complete request (pipelined garbage): that request was valid and
  // may already have had its effect, so it gets its own answer, and then the connection closes.
  if (inFlight?.req.complete && error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') {
    inFlight.shouldKeepAlive = false;
    setTimeout(() => socket.destroy(), 30_000).unref();
    return;
  }
  const { status, code, message } = clientErrorAnswer(error);
  const raw = (error as { rawPacket?: Buffer }).rawPacket?.toString('latin1') ?? '';
  const target = inFlight?.req.url ?? /^[^\r\n]*?\s(\/[!-~]*)/.exec(raw)?.[1] ?? '';
  const html = htmlErrorsFor(this, target);
  const body = html ? html.render(status, message) : JSON.stringify({ error: { code, message } });
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `Content-Type: ${html ? 'text/html' : 'application/json'}; charset=utf-8`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${uuidv7()}`,
    'X-Content-Type-Options: nosniff',
    ...Object.entries(html?.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  // A client that never reads its answer does not keep the socket.
  setTimeout(() => socket.destroy(), 5_000).unref();
}

// A percent-escape that does not decode (%ff, %C3%28, a lone %) is taken literally: the path is then
// routed as usual and its segment fails the route's own checks (422 at ["id"], the 404 page).
export function literalBadEscapes(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const fixed = path
    .split('/')
    .map((segment) => {
      // Runs of escapes that decode stay as they are (so that the path reads as routedPath reads
      // it); a run that does not decode, or a lone %, is escaped itself.
      return segment.replace(/((?:%[0-9A-Fa-f]{2})+)|%/g, (match: string, run?: string) => {
        if (!run) return '%25';
        try {
          decodeURIComponent(run);
          return run;
        } catch {
          return run.replace(/%/g, '%25');
        }
      });
    })
    .join('/');
  return q === -1 ? fixed : fixed + url.slice(q);
}

export function fastifyEdgeOptions(timeouts: Timeouts, getApp: () => FastifyInstance) {
  return {
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionTimeout: timeouts.requestMs + timeouts.keepAliveMs,
    http: {
      // The service never reads Host (links use PUBLIC_BASE_URL): a request without one is served
      // rather than refused with Node's bare 400.
      requireHostHeader: false,
      headersTimeout: timeouts.headersMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
    },
    clientErrorHandler,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      if (error.code === 'FST_ERR_BAD_URL') {
        const url = literalBadEscapes(request.raw.url ?? '/');
        if (url !== request.raw.url) {
          request.raw.url = url;
          return getApp().routing(request.raw, reply.raw);
        }
      }
      reply.header('X-Request-Id', request.id).header('X-Content-Type-Options', 'nosniff');
      return sendError(reply, 404, 'not_found', 'No such endpoint');
    },
  };
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export function installEdge(app: FastifyInstance, server: { html?: HtmlErrors }) {
  if (server.html) app.decorate('htmlErrors', server.html);
  // An unknown Expect is ignored rather than answered by Node with a bare 417.
  app.server.on('checkExpectation', (req, res) => app.routing(req, res));

  // Hooks of every request take `done` rather than returning a promise: no promise and no extra
  // turn of the microtask queue per hook (public verification, issue 34).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    reply.header('X-Content-Type-Options', 'nosniff');
    done();
  });

  // GET and HEAD carry no body. One that comes with a body is refused before the route runs, so that
  // a body that then turns out malformed cannot leave a download or a verification counted.
  app.addHook('preHandler', (request, _reply, done) => {
    if ((request.method === 'GET' || request.method === 'HEAD') && hasBody(request)) {
      done(new ValidationError([{ path: [], message: `A ${request.method} request carries no body` }]));
      return;
    }
    done();
  });
}
