// The same C test file as an ordinary multi-threaded executable with real threads: the
// stress-testing baseline weft is measured against (bench/). No instrumentation.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { includeDir, packageRoot } from '../../src/paths.js';
import { type BuildOptions, splitFlags } from '../../src/compile/compile.js';
import { BuildError, compileError } from '../../src/compile/errors.js';
import { compilerCommand, runTool } from '../../src/compile/toolchain.js';

const nativeSupport = join(packageRoot, 'bench', 'stress', 'weft_native.c');

/** Builds `file` with real pthreads; returns the executable's path. */
export function buildNative(file: string, options: BuildOptions = {}): string {
  const work = mkdtempSync(join(tmpdir(), 'weft-native-'));
  const executable = join(work, 'harness');
  const flags = [
    '-O1', '-g', '-pthread', '-I', includeDir,
    ...(options.includeDirs ?? []).flatMap((dir) => ['-I', dir]), ...splitFlags(options.cflags),
  ];
  const object = join(work, 'harness.o');
  const compiled = runTool(compilerCommand(), [...flags, '-c', file, '-o', object]);
  if (compiled.status !== 0) throw compileError(compiled.stderr, file);
  // a harness with its own main() keeps it; otherwise the runner's main runs its WEFT_TESTs
  const hasMain = runTool('nm', ['--defined-only', '--format=posix', object]).stdout.split('\n').some((line) => line.startsWith('main '));
  const linked = runTool(compilerCommand(), [
    ...flags, object, ...(options.sources ?? []), nativeSupport, ...(hasMain ? [] : ['-Wl,--defsym=main=weft_native_main']), '-o', executable, '-lm',
  ]);
  if (linked.status !== 0) throw new BuildError('link', `cannot link the native harness: ${linked.stderr.trim().split('\n')[0]}`, undefined, linked.stderr);
  return executable;
}
