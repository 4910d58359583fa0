// Builds in a small child process: starting a tool forks the process that starts it, and a
// fork costs with the parent's memory (about 2 ms from a bare Node, 7-18 ms from Vite's main
// process, blocking its event loop each time; a build starts four tools). The Vitest plugin
// hands its builds to one such process, which runs them as buildHarnessAsync would.
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

import { packageRoot } from '../paths.js';
import { type AsyncBuildHooks, type BuildOptions, buildHarnessAsync } from './compile.js';

/** What the plugin needs of a build done elsewhere: the files it read (for watch mode). */
export interface RemoteBuild {
  dependencies: string[];
}

type Request = { id: number; file: string; options: BuildOptions; urgent: boolean };
type Reply = { id: number; compiling: true } | { id: number; built?: RemoteBuild };

/** The builder is this module run by Node with this argument (from dist: tests load src). */
const BUILDER_ARGUMENT = '--weft-builder';
const builderScript = join(packageRoot, 'dist', 'src', 'compile', 'build-process.js');

if (process.argv[2] === BUILDER_ARGUMENT && process.send) {
  process.on('message', (request: Request) => {
    const reply = (message: Reply) => process.send?.(message);
    buildHarnessAsync(request.file, request.options, { urgent: request.urgent, onCompile: () => reply({ id: request.id, compiling: true }) })
      .then((built) => reply({ id: request.id, built: { dependencies: built.dependencies } }), () => reply({ id: request.id }));
  });
  process.on('disconnect', () => process.exit(0));
}

let child: ChildProcess | undefined;
let nextId = 0;
interface Pending {
  file: string;
  options: BuildOptions;
  hooks: AsyncBuildHooks;
  settle(built: RemoteBuild | undefined): void;
}
const pending = new Map<number, Pending>();

function builder(): ChildProcess {
  if (child) return child;
  const started = fork(builderScript, [BUILDER_ARGUMENT], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
  started.on('message', (reply: Reply) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    if ('compiling' in reply) return waiting.hooks.onCompile?.();
    pending.delete(reply.id);
    waiting.settle(reply.built);
  });
  // builds the builder took with it are done here
  started.on('exit', () => {
    child = undefined;
    for (const [id, { file, options, hooks, settle }] of pending) {
      pending.delete(id);
      buildHarnessAsync(file, options, hooks).then(({ dependencies }) => settle({ dependencies }), () => settle(undefined));
    }
  });
  // an idle builder never keeps the process that owns it alive
  started.unref();
  started.channel?.unref();
  child = started;
  return started;
}

/** Ends the builder (when Vitest closes); builds it had not finished are done here. */
export function stopBuilder(): void {
  child?.kill();
}

/**
 * buildHarnessAsync in the builder process. Undefined when the build failed: the caller
 * builds again where it reports the error.
 */
export function buildElsewhere(file: string, options: BuildOptions, hooks: AsyncBuildHooks = {}): Promise<RemoteBuild | undefined> {
  const id = nextId++;
  const { cflags, includeDirs, sources, cacheDirectory } = options;
  return new Promise((settle) => {
    pending.set(id, { file, options, hooks, settle });
    builder().send({ id, file, options: { cflags, includeDirs, sources, cacheDirectory }, urgent: hooks.urgent ?? false } satisfies Request);
  });
}
