import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { ValidationError } from '../platform/errors.js';
import { createFileChecker, createPdfRenderer, sampleValues } from '../pdf/pdf-renderer.js';
import { parseDesign } from '../modules/templates/template-design.js';
import { readDesignFile } from './design-file.js';
import { CliError } from './output.js';

// Renders a design with sample values, without a database.
export async function previewTemplate(file: string, out: string, config: Config) {
  const checker = createFileChecker({ threads: 1 });
  const design = await parseDesign(await readDesignFile(file), (d) => checker.design(d)).finally(() =>
    checker.close(),
  );
  const values = { ...sampleValues(design) };
  values.verificationUrl = `${config.publicBaseUrl}/verify/${values.uniqueCode}`;
  const renderer = createPdfRenderer({ threads: 1 });
  try {
    const [outcome] = await renderer.render({ id: 'preview', version: '0', design }, [values]);
    if (!outcome || !outcome.ok) {
      throw new ValidationError(outcome?.issues ?? [], 'the sample values cannot be rendered');
    }
    const target = path.resolve(out);
    await writeFile(target, outcome.pdf).catch(() => {
      throw new CliError(`cannot write ${target}`);
    });
    return { out: target, bytes: outcome.pdf.length, sha256: outcome.sha256 };
  } finally {
    await renderer.close();
  }
}
