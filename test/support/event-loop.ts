// Long explorations inside a Vitest worker give the event loop a turn every ~50 ms, so that
// the worker's messages to Vitest (which time out after 60 s) are not starved on a busy machine.

let sliceEnd = 0;

/** Waits for one turn of the event loop when the last was ~50 ms ago. */
export async function yieldEvery50Ms(): Promise<void> {
  if (performance.now() < sliceEnd) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  sliceEnd = performance.now() + 50;
}
