import type { FastifyInstance, FastifyReply } from 'fastify';

// The service's icon: a white check on the dashboard's navy. Every HTML page of the service (the
// dashboard, the verification page, the front door) names it in its head as a data: URL
// (FAVICON_LINK), so that no page asks for /favicon.ico and gets a 404, whatever its depth or a
// PUBLIC_BASE_URL's base path; their CSPs allow images from data:. It is also served as
// /favicon.svg and /favicon.ico (a 32 px PNG in an ICO), for the pages without the link (/docs) and
// for clients that ask the origin for /favicon.ico on their own. Not rate limited, like the
// dashboard's assets: constant bytes, cached by the browser.

export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#14213d"/>' +
  '<path d="M8.5 16.5l5 5 10-11" fill="none" stroke="#fff" stroke-width="3.6" stroke-linecap="round" stroke-linejoin="round"/></svg>';

const FAVICON_ICO = Buffer.from(
  'AAABAAEAICAAAAEAIABcAwAAFgAAAIlQTkcNChoKAAAADUlIRFIAAAAgAAAAIAgGAAAAc3p69AAAAxFJREFUeJzEl2tIk1EYx//ndUNQl5t4TW2aX6IoIgiMFDSC0jIlKrPMaxF0AW8YfomS/JCJQmX4IaUEkbKIdGkFkqTSSIguWkIGm+ZlajnJtNrl9J7VpkM3N93l92XnOee8/P97znnPeR8BFiCOiBMLoMmn4KIJoVsBEgiHQMcpJW8J9HIthFVqRYfaOEKMDYl0ZwJHyG1CyFo4EUrpiJ7Sk1PK7jaTAb+I2D0cwVO4EJ1en8hMEN91MRIhR/p4KyFwISwTGq1uM+fB0UxXizPYUgsEXIaA4zcc3ATT5iihbjPAtAUERAo3wbQ5OIlAfz9kHU+GSORtdR7xj4ylcDCR0lDImqoNJvr6vyB+Xw7b9UvOdXgGAvwlaKqvNIgzNm2IQsyObRbnC+BAfHy88IAXl4bPv9WqiW+Q97yD0w0IhQI01pZjI/+PjfycnUNadjE0Gi2caoA/VFBXXYro7VtMfVqtDumnSvDh42erz1rdAxLxGmQeS4bYV2RtGirKirB3d4wpZhvudN5ldL16g+WwaICltO1hDSquFOKFrM5sXRdyIT8XGUeTzPqKL1aiubUDtmDRQCy/c6MiwwztsNAgyO5XLzKRnZ6CovOZZn0VN+7iTsNj2IpFA518+hSDI6Y4OMgfLfduIjw02BAnJ8ajvLTA7Jn6xmZcraqFPXh4SaSXlhrQ6/V43t6NpIQ4iHz+nWbs90BiHGZmZnH9Wgk4bt7/k2cvcbawDPay7EnI0t/adAshwQEW58h73uNgep7V180Sy56EX4dVSEo9h9GxiSXHez8NIC23eEXiNhlgKIdGDSbGVJOL+o9kFhqWZKXYfBcwscRDZzA8Mm6IWUYOZxRgYnIKq8Hu25AdTin7d+FRSzvU0z+wWpxyHdsDvwRUBbdBVRyrWOAmmDbLgNsMMG1OB20Nf3mp4WKYJtPm1Aq5go9y4HqymLYHa81ND/Z7+oa/5gvFeP7jQgQn8r84Tf2u7JKx2MM48Gt6aMBTvL6Og+4PBfnNl+e8EeINh2Aoz7v58rxBB+EJtbKz1zjyFwAA//+uQNDFAAAABklEQVQDADh3GvdBt1iRAAAAAElFTkSuQmCC',
  'base64',
);

export const FAVICON_DATA_URL = `data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}`;

/** The <link rel="icon"> of every HTML page (its value is safe in HTML as it is). */
export const FAVICON_LINK = `<link rel="icon" type="image/svg+xml" href="${FAVICON_DATA_URL}">`;

export function faviconRoutes(app: FastifyInstance) {
  const options = { schema: { hide: true } };
  const send = (type: string, body: string | Buffer) => async (_request: unknown, reply: FastifyReply) =>
    reply
      .type(type)
      .header('Cache-Control', 'public, max-age=86400')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "default-src 'none'")
      .send(body);
  app.get('/favicon.svg', options, send('image/svg+xml', FAVICON_SVG));
  app.get('/favicon.ico', options, send('image/x-icon', FAVICON_ICO));
}
