// Long runs of CPU work on the main thread (signing the credentials of a batch of 500, sealing its
// PDFs: about 0.3 ms each) let other requests in every so often, so that one account's batch or
// import does not hold another's single issue or verification for a few hundred milliseconds.
const EVERY = 16;

/** Call once per item of a run; every EVERY items it waits for the event loop's pending I/O. */
export async function letOthersIn(index: number): Promise<void> {
  if (index % EVERY === EVERY - 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * One turn of the event loop, so that statements just begun are written to their connections
 * before CPU work that would hold them back: the pool hands a connection over on a later tick, which
 * waits until the current run of promise callbacks has finished. Then the CPU work overlaps the
 * database's.
 */
export function letStatementsOut(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
