// A process whose output can be awaited: Vitest in watch mode, in the tests and in the bench.
import type { ChildProcess } from 'node:child_process';

/** A Vitest process in watch mode, whose output can be awaited. */
export class Watcher {
  output = '';
  private waiters: { pattern: RegExp; from: number; resolve: (text: string) => void }[] = [];

  constructor(private readonly child: ChildProcess) {
    const collect = (chunk: Buffer) => {
      this.output += chunk.toString();
      this.waiters = this.waiters.filter((waiter) => {
        const rest = this.output.slice(waiter.from);
        if (!waiter.pattern.test(rest)) return true;
        waiter.resolve(rest);
        return false;
      });
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
  }

  /** Resolves with the output after `from` once it matches; rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, from = 0, timeoutMs = 60_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const rest = this.output.slice(from);
      if (pattern.test(rest)) return resolve(rest);
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${this.output}`)), timeoutMs);
      this.waiters.push({ pattern, from, resolve: (text) => { clearTimeout(timer); resolve(text); } });
    });
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}
