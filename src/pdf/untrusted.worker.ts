import { parentPort } from 'node:worker_threads';
import type { Design } from './design.schema.js';
import { designIssues } from './design-issues.js';
import { checkImage, imageProblem } from './images.js';
import { safeSvg, SvgRefusal } from '../platform/svg/safe-svg.js';
import { checkFont } from './font-check.js';
import { releaseFaces } from './fonts.js';
import type { RenderIssue } from './render-types.js';

// Runs in the file checker's threads (file-checker.ts): everything that reads bytes people send
// (designs with their images and fonts, uploaded images and fonts), away from the event loop and
// under the thread's memory cap and the checker's time limit.

export type CheckTask = (
  | { kind: 'design'; design: Design }
  | { kind: 'image'; type: 'png' | 'jpeg'; bytes: Uint8Array }
  | { kind: 'font'; bytes: Uint8Array }
  | { kind: 'svg'; bytes: Uint8Array }
) & { id?: number };

export type CheckResult =
  | { kind: 'design'; issues: RenderIssue[] }
  | { kind: 'image'; ok: true; width: number; height: number }
  | { kind: 'font'; ok: true; family: string | undefined; bold: boolean }
  | { kind: 'svg'; ok: true; svg: string }
  | { kind: 'image' | 'font' | 'svg'; ok: false; message: string };

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export default async function check(task: CheckTask): Promise<CheckResult> {
  // The checker's time limit starts now (file-checker.ts).
  if (task.id !== undefined) parentPort?.postMessage({ checkStarted: task.id });
  try {
    return await checked(task);
  } finally {
    releaseFaces();
  }
}

async function checked(task: CheckTask): Promise<CheckResult> {
  switch (task.kind) {
    case 'design':
      return { kind: 'design', issues: await designIssues(task.design) };
    case 'image':
      try {
        return { kind: 'image', ok: true, ...(await checkImage(task.type, asBuffer(task.bytes))) };
      } catch (err) {
        return { kind: 'image', ok: false, message: (err as Error).message };
      }
    case 'svg':
      return checkedSvg(asBuffer(task.bytes));
    case 'font':
      try {
        return { kind: 'font', ok: true, ...checkFont(asBuffer(task.bytes)) };
      } catch (err) {
        return { kind: 'font', ok: false, message: (err as Error).message };
      }
  }
}

// An SVG drawing made safe (platform/svg/safe-svg.ts), with the PNG and JPEG images it embeds held
// to the same checks as any uploaded image.
async function checkedSvg(bytes: Buffer): Promise<CheckResult> {
  try {
    const { svg, images } = safeSvg(bytes);
    for (const image of images) {
      const problem = await imageProblem(image);
      if (problem) return { kind: 'svg', ok: false, message: `embeds an image that ${problem}` };
    }
    return { kind: 'svg', ok: true, svg };
  } catch (err) {
    if (err instanceof SvgRefusal) return { kind: 'svg', ok: false, message: err.message };
    throw err;
  }
}

// The pool waits for this before it terminates the thread (file-checker.ts, close()).
parentPort?.postMessage({ checkWorkerLoaded: true });
