// orval 7's fetch client reads every answer as text and JSON-parses it, whatever its content type,
// so its generated downloadCertificatePdf throws on the PDF. orval's documented remedy is a
// `mutator` (a fetch of your own) for that operation: this one reads JSON answers as JSON and others
// (the PDF) as a Blob, and answers in the shape orval's generated types expect. The other
// operations run orval's own generated code unchanged.
export const pdfFetch = async <T>(url: string, options: RequestInit): Promise<T> => {
  const res = await fetch(url, options);
  const type = res.headers.get('content-type') ?? '';
  const data = [204, 205, 304].includes(res.status)
    ? undefined
    : type.includes('json')
      ? await res.json()
      : await res.blob();
  return { data, status: res.status, headers: res.headers } as T;
};
