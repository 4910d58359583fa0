// A worker process of a parallel exploration (parallel.ts): loads the harness itself, so that
// harness code that brings a process down takes only this worker, and explores the subtrees
// the coordinator gives it (subtree-host.ts), a slice of executions at a time between
// messages. Between searches it waits for the next one (the processes are reused).
import { type NativeHarness, openHarness } from '../addon/addon.js';
import { absoluteLocation } from '../report/replay.js';
import { type CoordinatorMessage, type HostMessage, type RunOptions, type SplitStrategy, SubtreeHost, subtreeSearches } from './subtree-host.js';

/** The first message of a search: what to load and how to run it. */
export interface WorkerSetup {
  kind: 'setup';
  /** the strategy whose search is split */
  strategy: SplitStrategy;
  library: string;
  hangTimeoutMs: number;
  options: RunOptions;
  /** options.visible, relative to the library and the heap (report/replay.ts: relativeLocation) */
  visible: string[];
}

const SLICE_MS = 4;

/** loaded once per library: a library is never unloaded (addon/harness-pool.ts) */
const harnesses = new Map<string, NativeHarness>();
let host: SubtreeHost | undefined;
let wake: (() => void) | undefined;

// the coordinator may be gone (it ended): this process then ends on the disconnect
const send = (message: HostMessage) => process.connected && process.send!(message);

process.on('message', (message: WorkerSetup | CoordinatorMessage) => {
  if (message.kind === 'setup') {
    const harness = harnesses.get(message.library) ?? openHarness(message.library);
    harnesses.set(message.library, harness);
    harness.setHangTimeout(message.hangTimeoutMs);
    const bases = harness.result();
    const visible = Float64Array.from(message.visible, (location) => absoluteLocation(location, bases));
    host = new SubtreeHost(harness, { ...message.options, visible }, subtreeSearches(message.strategy, bases), send);
    void explore(host);
  } else if (message.kind === 'stop') {
    host?.handle(message);
    host?.flushCounts();
    host = undefined;
    send({ kind: 'stopped' });
  } else host?.handle(message);
  wake?.();
});
process.on('disconnect', () => process.exit(0));
process.on('error', () => process.exit(0)); // a message sent as the coordinator went away

async function explore(host: SubtreeHost): Promise<void> {
  while (!host.stopped) {
    const sliceEnd = performance.now() + SLICE_MS;
    while (host.runnable && performance.now() < sliceEnd) host.step();
    host.flushCounts();
    host.reportIdle();
    await new Promise<void>((resolve) => {
      wake = resolve;
      if (host.runnable) setImmediate(resolve);
    });
    wake = undefined;
  }
}
