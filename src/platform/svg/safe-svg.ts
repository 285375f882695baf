import { escapeXml, XmlError, xmlTokens, type XmlAttribute, type XmlToken } from './xml-tokens.js';

// An SVG drawing people upload (a template's badge image, issue 31), made safe to serve to any
// browser: rebuilt from an allow-list of elements and attributes of static SVG, never copied as it
// came. What would run or fetch something is refused with the reason (a script, an event attribute,
// foreignObject, an animation, a reference outside the file, a DOCTYPE or an unknown entity, a
// processing instruction); what is merely unknown (editors' metadata, other namespaces' elements
// and attributes, comments) is dropped. References may only point inside the file (`#id`) or be
// PNG or JPEG data (the caller checks those images as any other). Bounded: 512 KB, 20,000
// elements, 64 levels deep.

export const SVG_MAX_BYTES = 512 * 1024;
const MAX_ELEMENTS = 20_000;
const MAX_DEPTH = 64;
export const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';
const XLINK_NAMESPACE = 'http://www.w3.org/1999/xlink';

/** Why an SVG file is refused; the message completes "The SVG file ..." */
export class SvgRefusal extends Error {}

const ELEMENTS = new Set(
  (
    'svg g defs symbol use title desc path rect circle ellipse line polyline polygon text tspan ' +
    'textPath linearGradient radialGradient stop clipPath mask pattern image marker style a switch ' +
    'filter feBlend feColorMatrix feComponentTransfer feComposite feDropShadow feFlood feFuncA feFuncB ' +
    'feFuncG feFuncR feGaussianBlur feMerge feMergeNode feMorphology feOffset'
  ).split(' '),
);

const REFUSED: Record<string, string> = {
  script: 'has a script (<script>): a badge may hold no script',
  foreignObject: 'embeds content that is not SVG (<foreignObject>)',
  iframe: 'embeds another page (<iframe>)',
  embed: 'embeds other content (<embed>)',
  object: 'embeds other content (<object>)',
  audio: 'has sound (<audio>)',
  video: 'has video (<video>)',
  animate: 'has an animation (<animate>), which can change links and content while it is shown',
  set: 'has an animation (<set>), which can change links and content while it is shown',
  animateMotion: 'has an animation (<animateMotion>)',
  animateTransform: 'has an animation (<animateTransform>)',
  handler: 'has an event handler (<handler>)',
  listener: 'has an event listener (<listener>)',
};

const ATTRIBUTES = new Set(
  (
    'id class x y x1 y1 x2 y2 cx cy r rx ry fx fy fr width height d points viewBox preserveAspectRatio ' +
    'transform fill fill-opacity fill-rule stroke stroke-width stroke-opacity stroke-linecap ' +
    'stroke-linejoin stroke-miterlimit stroke-dasharray stroke-dashoffset opacity color display ' +
    'visibility clip-path clip-rule clipPathUnits mask maskUnits maskContentUnits font-family font-size ' +
    'font-weight font-style font-variant font-stretch text-anchor dominant-baseline alignment-baseline ' +
    'baseline-shift letter-spacing word-spacing text-decoration writing-mode direction dx dy rotate ' +
    'textLength lengthAdjust startOffset method spacing side offset stop-color stop-opacity gradientUnits ' +
    'gradientTransform spreadMethod patternUnits patternContentUnits patternTransform markerWidth ' +
    'markerHeight markerUnits refX refY orient marker-start marker-mid marker-end filter filterUnits ' +
    'primitiveUnits in in2 result stdDeviation mode operator k1 k2 k3 k4 values type tableValues slope ' +
    'intercept amplitude exponent flood-color flood-opacity radius style version shape-rendering ' +
    'image-rendering text-rendering color-interpolation color-interpolation-filters vector-effect ' +
    'paint-order mix-blend-mode isolation overflow pathLength systemLanguage'
  ).split(' '),
);

const FRAGMENT = /^#[A-Za-z_][-A-Za-z0-9_.:]*$/;
const DATA_IMAGE = /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/=\s]+$/;

function quoted(value: string): string {
  return value.length > 60 ? `${value.slice(0, 57)}...` : value;
}

// Every url(...) in a value or a style sheet must point inside the file.
function checkUrls(value: string): void {
  for (const match of value.matchAll(/url\s*\(\s*(['"]?)([^'")]*)\1\s*\)/gi)) {
    if (!FRAGMENT.test(match[2]!.trim())) {
      throw new SvgRefusal(`refers to something outside the file (url(${quoted(match[2]!)}))`);
    }
  }
  if (/url\s*\(/i.test(value.replace(/url\s*\(\s*(['"]?)([^'")]*)\1\s*\)/gi, ''))) {
    throw new SvgRefusal('has a url( ... ) that cannot be read');
  }
}

function checkCss(css: string): void {
  if (/@import/i.test(css)) throw new SvgRefusal('loads a style sheet (@import)');
  if (css.includes('\\'))
    throw new SvgRefusal('has escapes (\\) in its styles, which could hide a reference');
  if (/expression\s*\(|-moz-binding|behavior\s*:|javascript:/i.test(css)) {
    throw new SvgRefusal('has styles that would run code');
  }
  // Ways to name a file in CSS without url(): refused like url() to outside the file.
  if (/image-set\s*\(|\bsrc\s*\(|@font-face|@namespace/i.test(css)) {
    throw new SvgRefusal('has styles that could load other files (image-set, src, @font-face)');
  }
  checkUrls(css);
}

interface Built {
  out: string[];
  images: string[];
  xlink: boolean;
}

// The element's attributes that are kept, as text; refuses the dangerous ones.
function attributesOf(element: string, attributes: XmlAttribute[], built: Built): string {
  let text = '';
  for (const { name, value } of attributes) {
    if (/^on/i.test(name)) throw new SvgRefusal(`has an event attribute (${name} on <${element}>)`);
    if (name === 'xmlns') {
      if (value !== SVG_NAMESPACE) {
        throw new SvgRefusal(`has content that is not SVG (<${element} xmlns="${quoted(value)}">)`);
      }
      continue;
    }
    if (name === 'href' || name === 'xlink:href') {
      const ref = value.trim();
      if (DATA_IMAGE.test(ref)) built.images.push(ref.replace(/\s+/g, ''));
      else if (!FRAGMENT.test(ref)) {
        throw new SvgRefusal(`refers to something outside the file (${name}="${quoted(ref)}")`);
      }
      text += ` ${name}="${escapeXml(ref.replace(/\s+/g, ''))}"`;
      if (name === 'xlink:href') built.xlink = true;
      continue;
    }
    if (name === 'style') checkCss(value);
    else if (/javascript:/i.test(value)) throw new SvgRefusal(`has a javascript: link (${name})`);
    // Editors' own attributes (inkscape:..., sodipodi:..., data-...) and unknown ones are dropped.
    if (!ATTRIBUTES.has(name) && name !== 'xml:space') continue;
    checkUrls(value);
    text += ` ${name}="${escapeXml(value)}"`;
  }
  return text;
}

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

function refuseToken(token: XmlToken): void {
  if (token.kind === 'doctype') {
    throw new SvgRefusal(
      'has a DOCTYPE: its entities could expand without end or load other files. Remove it',
    );
  }
  if (token.kind === 'instruction') {
    throw new SvgRefusal(
      `has a processing instruction (<?${token.target} ...?>), which can load a style sheet`,
    );
  }
  if (token.kind === 'open' && localName(token.name) in REFUSED) {
    throw new SvgRefusal(REFUSED[localName(token.name)]!);
  }
}

/**
 * The drawing rebuilt from what is safe, with the PNG and JPEG data it embeds (data URLs, for the
 * caller to check); throws SvgRefusal saying why it cannot be used.
 */
export function safeSvg(bytes: Buffer): { svg: string; images: string[] } {
  if (bytes.length > SVG_MAX_BYTES) {
    throw new SvgRefusal(`is ${Math.ceil(bytes.length / 1024)} KB: an SVG badge may be at most 512 KB`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new SvgRefusal('is not UTF-8 text');
  }
  try {
    return rebuilt(text);
  } catch (err) {
    if (err instanceof XmlError) throw new SvgRefusal(`is not well-formed XML: it ${err.message}`);
    throw err;
  }
}

function rebuilt(text: string): { svg: string; images: string[] } {
  const built: Built = { out: [], images: [], xlink: false };
  // Open elements: their names, and whether each is kept (false: dropped with all it holds).
  const stack: { name: string; kept: boolean; style: boolean }[] = [];
  let elements = 0;
  let rootDone = false;
  for (const token of xmlTokens(text)) {
    refuseToken(token);
    const top = stack.at(-1);
    const keeping = stack.every((e) => e.kept);
    switch (token.kind) {
      case 'open': {
        if (rootDone) throw new SvgRefusal('has content after its <svg> element');
        if (!top && token.name !== 'svg') {
          throw new SvgRefusal(`is not an SVG drawing: its root element is <${token.name}>`);
        }
        if (++elements > MAX_ELEMENTS) throw new SvgRefusal(`has more than ${MAX_ELEMENTS} elements`);
        if (stack.length >= MAX_DEPTH) throw new SvgRefusal(`nests elements more than ${MAX_DEPTH} deep`);
        const kept = keeping && ELEMENTS.has(token.name);
        const attrs = kept ? attributesOf(token.name, token.attributes, built) : '';
        if (kept) built.out.push(`<${token.name}${attrs}${token.selfClosing ? '/>' : '>'}`);
        if (!token.selfClosing) stack.push({ name: token.name, kept, style: token.name === 'style' });
        else if (!top) rootDone = true;
        break;
      }
      case 'close':
        if (!top || top.name !== token.name) {
          throw new SvgRefusal(
            `is not well-formed XML: </${token.name}> closes ${top ? `<${top.name}>` : 'nothing'}`,
          );
        }
        stack.pop();
        if (keeping) built.out.push(`</${token.name}>`);
        if (stack.length === 0) rootDone = true;
        break;
      case 'text':
      case 'cdata':
        if (!top) {
          if (token.text.trim() !== '') throw new SvgRefusal('has text outside its <svg> element');
          break;
        }
        if (!keeping) break;
        if (top.style) checkCss(token.text);
        built.out.push(escapeXml(token.text));
        break;
      default:
        // The XML declaration and comments are dropped.
        break;
    }
  }
  if (!rootDone) throw new SvgRefusal(stack.length ? 'is cut short' : 'has no <svg> element');
  const namespaces = ` xmlns="${SVG_NAMESPACE}"${built.xlink ? ` xmlns:xlink="${XLINK_NAMESPACE}"` : ''}`;
  built.out[0] = built.out[0]!.replace(/^<svg/, `<svg${namespaces}`);
  return { svg: built.out.join(''), images: built.images };
}
