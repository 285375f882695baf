import { preparedImage } from './images.js';
import { num, type PdfWriter } from './pdf-syntax.js';

// The images of a template as PDF objects, each written once however many elements show it, and the
// operators that place them (y from the top of the page).

export class ImageObjects {
  private readonly byUrl = new Map<string, { name: string; id: number; width: number; height: number }>();

  constructor(
    private readonly writer: PdfWriter,
    /** The next free object number: images take theirs from here. */
    public nextObject: number,
    private readonly pageHeight: number,
  ) {}

  /** The image's resource name (`Im1`), its objects written when new. */
  resource(src: string): string {
    const known = this.byUrl.get(src);
    if (known) return known.name;
    const image = preparedImage(src);
    const id = this.nextObject++;
    const smaskId = image.smask ? this.nextObject++ : 0;
    this.writer.stream(id, image.dict + (smaskId ? ` /SMask ${smaskId} 0 R` : ''), image.data);
    if (image.smask) this.writer.stream(smaskId, image.smask.dict, image.smask.data);
    const name = `Im${this.byUrl.size + 1}`;
    this.byUrl.set(src, { name, id, width: image.width, height: image.height });
    return name;
  }

  /** The image's size in pixels. */
  size(src: string): { width: number; height: number } {
    this.resource(src);
    return this.byUrl.get(src)!;
  }

  place(src: string, box: { x: number; y: number; width: number; height: number }): string {
    const name = this.resource(src);
    const y = this.pageHeight - box.y - box.height;
    return `q ${num(box.width)} 0 0 ${num(box.height)} ${num(box.x)} ${num(y)} cm /${name} Do Q\n`;
  }

  /** The page's /XObject entries. */
  entries(): string {
    return [...this.byUrl.values()].map(({ name, id }) => `/${name} ${id} 0 R`).join(' ');
  }
}
