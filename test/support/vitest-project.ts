// Small Vitest projects that use the weft plugin, written to a scratch folder inside
// the repository (so that they resolve vitest from its node_modules) and run as real
// Vitest processes.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { packageRoot } from '../../src/paths.js';
import { removeAfterAll } from './harness.js';

const vitestBin = join(packageRoot, 'node_modules', 'vitest', 'vitest.mjs');
const pluginModule = join(packageRoot, 'dist', 'src', 'vitest', 'plugin.js');

export interface Project {
  dir: string;
  write(file: string, content: string): void;
  run(args?: string[]): { status: number; output: string };
  watch(args?: string[]): Watcher;
}

export function createProject(files: Record<string, string>, pluginOptions = '{ maxBound: 2 }'): Project {
  const scratch = join(packageRoot, 'test', 'projects', '.tmp');
  mkdirSync(scratch, { recursive: true });
  const dir = mkdtempSync(join(scratch, 'project-'));
  removeAfterAll(dir);
  const write = (file: string, content: string) => writeFileSync(join(dir, file), content);
  write('vitest.config.mjs', `import { defineConfig } from 'vitest/config';
import weft from ${JSON.stringify(pluginModule)};
export default defineConfig({ plugins: [weft(${pluginOptions})], test: { testTimeout: 60000 } });
`);
  for (const [file, content] of Object.entries(files)) write(file, content);
  const env = { ...process.env, NO_COLOR: '1', CI: '1', WEFT_CACHE_DIR: join(dir, '.cache') };
  return {
    dir,
    write,
    run(args = []) {
      const result = spawnSync(process.execPath, [vitestBin, 'run', ...args], { cwd: dir, encoding: 'utf8', env, timeout: 120_000 });
      return { status: result.status ?? -1, output: `${result.stdout}\n${result.stderr}` };
    },
    watch(args = []) {
      return new Watcher(spawn(process.execPath, [vitestBin, '--watch', ...args], { cwd: dir, env: { ...env, CI: '' } }));
    },
  };
}

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
