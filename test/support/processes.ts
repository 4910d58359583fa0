// A process's children and command line, read from /proc (Linux), for the tests of worker processes.
import { readFileSync } from 'node:fs';

/** A process's command line; empty once it ended (the CLI's compiler runs come and go). */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

export function childrenOf(pid: number): number[] {
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
    return tasks.split(' ').filter((id) => id !== '').map(Number);
  } catch {
    return [];
  }
}

/** The parallel search's worker processes (src/explore/parallel-worker.ts) that `pid` started. */
export function workersOf(pid: number): number[] {
  return childrenOf(pid).filter((child) => commandOf(child).includes('parallel-worker'));
}
