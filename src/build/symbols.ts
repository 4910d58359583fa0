// Which external functions a harness may call: those weft models are redirected to the
// runtime (objcopy --redefine-syms on the harness's objects); those it cannot model are
// refused before anything runs. Everything else (string.h, math.h, …) is called as is.

/** harness symbol -> runtime symbol */
export const redirectedSymbols: ReadonlyMap<string, string> = new Map(
  [
    // threads
    'pthread_create', 'pthread_join', 'pthread_exit', 'pthread_self', 'pthread_equal', 'pthread_detach',
    // mutexes
    'pthread_mutex_init', 'pthread_mutex_destroy', 'pthread_mutex_lock', 'pthread_mutex_trylock',
    'pthread_mutex_unlock',
    // heap
    'malloc', 'calloc', 'realloc', 'reallocarray', 'free', 'posix_memalign', 'aligned_alloc', 'memalign',
    'strdup', 'strndup',
    // ending an execution
    '__assert_fail', 'abort', 'exit', '_exit', '_Exit',
    // yielding and sleeping
    'sched_yield', 'usleep', 'sleep', 'nanosleep',
    // output
    'printf', 'vprintf', 'fprintf', 'vfprintf', 'puts', 'fputs', 'putchar', 'fputc', 'putc', 'fwrite',
    'fflush', 'perror', '__printf_chk', '__fprintf_chk', '__vprintf_chk', '__vfprintf_chk',
  ].map((name) => [name, `weft_${name}`]),
);

/** main() of a program without WEFT_TEST becomes the test named main. */
export const userMainSymbol = 'weft_user_main';

const refusedExact: ReadonlyMap<string, string> = new Map([
  ...['fork', 'vfork', 'execve', 'execv', 'execvp', 'execvpe', 'execl', 'execlp', 'execle', 'system', 'popen',
    'posix_spawn', 'posix_spawnp', 'wait', 'waitpid', 'daemon', 'clone'].map(
    (name) => [name, 'processes cannot run under weft\'s scheduler'] as const),
  ...['socket', 'connect', 'bind', 'listen', 'accept', 'accept4', 'send', 'recv', 'sendto', 'recvfrom',
    'sendmsg', 'recvmsg', 'select', 'pselect', 'poll', 'ppoll', 'epoll_create', 'epoll_create1', 'epoll_ctl',
    'epoll_wait', 'getaddrinfo', 'pipe', 'pipe2', 'eventfd'].map(
    (name) => [name, 'blocking I/O and sockets are not modelled'] as const),
  ...['signal', 'sigaction', 'raise', 'kill', 'alarm', 'setitimer', 'pause', 'sigwait', 'sigsuspend',
    'pthread_kill', 'pthread_sigmask', 'sigprocmask'].map(
    (name) => [name, 'signals are used by weft itself and are not modelled'] as const),
  ['pthread_cancel', 'thread cancellation is not modelled'],
  ['pthread_setcancelstate', 'thread cancellation is not modelled'],
  ['pthread_setcanceltype', 'thread cancellation is not modelled'],
  ['pthread_testcancel', 'thread cancellation is not modelled'],
  ['__tls_get_addr', 'thread-local variables (__thread, _Thread_local) are not modelled yet'],
  ['setjmp', 'setjmp/longjmp across weft\'s scheduling points is not supported'],
  ['longjmp', 'setjmp/longjmp across weft\'s scheduling points is not supported'],
  ['_setjmp', 'setjmp/longjmp across weft\'s scheduling points is not supported'],
  ['__longjmp_chk', 'setjmp/longjmp across weft\'s scheduling points is not supported'],
]);

/** Attribute, key and condition helpers are plain data functions: libc's own are fine. */
const harmlessThreadFunctions = /^pthread_(mutexattr|attr|condattr|rwlockattr|barrierattr)_/;
const threadFamily = /^(pthread_|sem_|thrd_|mtx_|cnd_|tss_|call_once$)/;

/** Why a symbol cannot be used, or undefined when it can. */
export function refusalReason(symbol: string): string | undefined {
  const exact = refusedExact.get(symbol);
  if (exact) return exact;
  if (redirectedSymbols.has(symbol) || harmlessThreadFunctions.test(symbol)) return undefined;
  if (threadFamily.test(symbol)) return 'this synchronisation function is not modelled by weft yet';
  return undefined;
}

/** The objcopy --redefine-syms file: one "old new" pair per line. */
export function redefinitionTable(renameMain: boolean): string {
  const lines = [...redirectedSymbols].map(([from, to]) => `${from} ${to}`);
  if (renameMain) lines.push(`main ${userMainSymbol}`);
  return lines.join('\n') + '\n';
}
