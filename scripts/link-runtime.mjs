// Links weft's runtime (the static library node-gyp builds) into one relocatable object
// whose only global symbols are its interface: the instrumentation hooks (__tsan_*), the
// functions harness calls are redirected to and weft's API (weft_*), and the SV-COMP
// entry points. Every internal name (sched_point, heap_check, output_append, ...) becomes
// local, so a harness may define a function of the same name without a clash.
// Run after node-gyp (npm's install and build scripts).
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const release = join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'Release');
const object = join(release, 'weft_runtime.o');
const interfaceSymbols = ['__tsan_*', 'weft_*', '__VERIFIER_*', 'reach_error', '__cyg_profile_func_*'];

execFileSync('ld', ['-r', '-o', object, '--whole-archive', join(release, 'weft_runtime.a')], { stdio: 'inherit' });
execFileSync('objcopy', ['--wildcard', ...interfaceSymbols.map((symbol) => `--keep-global-symbol=${symbol}`), object], { stdio: 'inherit' });
