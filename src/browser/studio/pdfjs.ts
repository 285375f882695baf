// The little of pdf.js the studio uses (npm pdfjs-dist, served by the service itself and imported
// from its URL at run time: not bundled).

interface Viewport {
  width: number;
  height: number;
}

interface PdfPage {
  getViewport(opts: { scale: number }): Viewport;
  render(opts: { canvas: HTMLCanvasElement; canvasContext: CanvasRenderingContext2D; viewport: Viewport }): {
    promise: Promise<void>;
  };
}

interface PdfDocument {
  numPages: number;
  getPage(n: number): Promise<PdfPage>;
  destroy(): Promise<void>;
}

export interface PdfJs {
  GlobalWorkerOptions: { workerSrc: string };
  getDocument(opts: { data: Uint8Array; isEvalSupported: boolean }): { promise: Promise<PdfDocument> };
}

export function loadPdfJs(url: string, workerUrl: string): Promise<PdfJs> {
  return (import(url) as Promise<PdfJs>).then((m) => {
    m.GlobalWorkerOptions.workerSrc = workerUrl;
    return m;
  });
}
