import { parentPort } from 'node:worker_threads';
import type { Design } from './design.schema.js';
import { designIssues } from './design-issues.js';
import { checkImage } from './images.js';
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
) & { id?: number };

export type CheckResult =
  | { kind: 'design'; issues: RenderIssue[] }
  | { kind: 'image'; ok: true; width: number; height: number }
  | { kind: 'font'; ok: true; family: string | undefined; bold: boolean }
  | { kind: 'image' | 'font'; ok: false; message: string };

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
    case 'font':
      try {
        return { kind: 'font', ok: true, ...checkFont(asBuffer(task.bytes)) };
      } catch (err) {
        return { kind: 'font', ok: false, message: (err as Error).message };
      }
  }
}

// The pool waits for this before it terminates the thread (file-checker.ts, close()).
parentPort?.postMessage({ checkWorkerLoaded: true });
