import { pdfDate } from './pdf-syntax.js';

// The XMP metadata of a PDF/A-3a and PDF/UA-1 file (the catalog's /Metadata, uncompressed): the
// identifications (pdfaid part 3, conformance A; pdfuaid part 1, with the extension schema PDF/A
// asks for a namespace outside its predefined ones), and the document information again: dc:title
// as /Title, xmp:CreateDate as /CreationDate, pdf:Producer as /Producer. All of it is the template's
// but the date: a document joins the two halves around its date.

export const PRODUCER = 'certsvc';

function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/[^\t\n\r\u0020-\ufffd\u{10000}-\u{10ffff}]/gu, ''); // what XML 1.0 cannot hold
}

const EXTENSION_SCHEMA = `
   <pdfaExtension:schemas>
    <rdf:Bag>
     <rdf:li rdf:parseType="Resource">
      <pdfaSchema:schema>PDF/UA Universal Accessibility Schema</pdfaSchema:schema>
      <pdfaSchema:namespaceURI>http://www.aiim.org/pdfua/ns/id/</pdfaSchema:namespaceURI>
      <pdfaSchema:prefix>pdfuaid</pdfaSchema:prefix>
      <pdfaSchema:property>
       <rdf:Seq>
        <rdf:li rdf:parseType="Resource">
         <pdfaProperty:name>part</pdfaProperty:name>
         <pdfaProperty:valueType>Integer</pdfaProperty:valueType>
         <pdfaProperty:category>internal</pdfaProperty:category>
         <pdfaProperty:description>Indicates, which part of ISO 14289 standard is followed</pdfaProperty:description>
        </rdf:li>
       </rdf:Seq>
      </pdfaSchema:property>
     </rdf:li>
    </rdf:Bag>
   </pdfaExtension:schemas>`;

/** The metadata's bytes before and after the creation date (an XMP date, `2026-11-21T09:30:00Z`). */
export function xmpHalves(title: string, lang: string): { head: Buffer; tail: Buffer } {
  const head =
    '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n' +
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">\n' +
    ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n' +
    '  <rdf:Description rdf:about=""\n' +
    '    xmlns:dc="http://purl.org/dc/elements/1.1/"\n' +
    '    xmlns:xmp="http://ns.adobe.com/xap/1.0/"\n' +
    '    xmlns:pdf="http://ns.adobe.com/pdf/1.3/"\n' +
    '    xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"\n' +
    '    xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/"\n' +
    '    xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"\n' +
    '    xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#"\n' +
    '    xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">\n' +
    `   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(title)}</rdf:li></rdf:Alt></dc:title>\n` +
    `   <dc:language><rdf:Bag><rdf:li>${escapeXml(lang)}</rdf:li></rdf:Bag></dc:language>\n` +
    '   <dc:format>application/pdf</dc:format>\n' +
    `   <pdf:Producer>${PRODUCER}</pdf:Producer>\n` +
    '   <pdfaid:part>3</pdfaid:part>\n' +
    '   <pdfaid:conformance>A</pdfaid:conformance>\n' +
    '   <pdfuaid:part>1</pdfuaid:part>\n' +
    '   <xmp:CreateDate>';
  const tail =
    `</xmp:CreateDate>${EXTENSION_SCHEMA}\n` +
    '  </rdf:Description>\n' +
    ' </rdf:RDF>\n' +
    '</x:xmpmeta>\n' +
    '<?xpacket end="w"?>';
  return { head: Buffer.from(head, 'utf8'), tail: Buffer.from(tail, 'utf8') };
}

/** ISO timestamp -> the XMP date of the same second as pdfDate's (`2026-11-21T09:30:00Z`). */
export function xmpDate(iso: string): string {
  // From pdfDate's `(D:20261121093000Z)`: the date parsed once for both (pdfDate keeps the last).
  const d = pdfDate(iso);
  return `${d.slice(3, 7)}-${d.slice(7, 9)}-${d.slice(9, 11)}T${d.slice(11, 13)}:${d.slice(13, 15)}:${d.slice(15, 17)}Z`;
}

export const METADATA_DICT = '/Type /Metadata /Subtype /XML';
