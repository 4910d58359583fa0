// A file's stamp (inode, size, change times) stands for its content while it holds: the build
// cache, the plugin and the workers that take a plugin's build all judge files by it. No
// crypto here: a worker that only reuses passes checks stamps and loads nothing more.
import { type BigIntStats, statSync } from 'node:fs';

/**
 * How old a file's last change must be before its stamp stands for its content: a
 * timestamp has the granularity of the kernel's clock tick, so a file written twice within
 * one tick can keep its stamp (and its size) with new content. Git's "racily clean" rule.
 */
const SETTLED_MS = 2000;
const SECOND_NS = 1_000_000_000n;
const SETTLED_NS = BigInt(SETTLED_MS) * 1_000_000n;

export function statusOf(path: string): BigIntStats | undefined {
  try {
    return statSync(path, { bigint: true });
  } catch {
    return undefined;
  }
}

const stampText = (status: BigIntStats) => `${status.ino}:${status.size}:${status.mtimeNs}:${status.ctimeNs}`;

/** A file's stamp (inode, size, change times), and whether its last change is settled; undefined if it cannot be read. */
export function stampOf(path: string): { stamp: string; settled: boolean } | undefined {
  const status = statusOf(path);
  return status && { stamp: stampText(status), settled: Date.now() - Number(status.ctimeMs) > SETTLED_MS };
}

/**
 * Whether a file has not changed since `moment` (fileClockNow): any later change carries a
 * change time at or after it. Where change times are whole seconds, a later change can carry
 * an earlier time: there the last change must be older than the moment by a settled margin.
 */
export function unchangedSince(status: BigIntStats, moment: bigint): boolean {
  const margin = status.ctimeNs % SECOND_NS === 0n ? SETTLED_NS : 0n;
  return status.ctimeNs + margin < moment;
}

/**
 * The stamp of a file that has not changed since `moment`: while the stamp stays the same,
 * the content is what was read after that moment. Undefined if it changed since, or cannot be read.
 */
export function stampUnchangedSince(path: string, moment: bigint): string | undefined {
  const status = statusOf(path);
  return status && unchangedSince(status, moment) ? stampText(status) : undefined;
}

/** Whether files still have the stamps they were seen with. */
export const stillStampedAll = (stamps: readonly (readonly [path: string, stamp: string])[]) =>
  stamps.every(([path, stamp]) => stampOf(path)?.stamp === stamp);

