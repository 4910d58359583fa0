// One error type for everything weft refuses: a bad option, a file it cannot build, a
// replay string that does not fit, a harness the addon cannot load. Each carries a code
// and the exit status the CLI ends with; anything else that reaches the CLI is a bug in
// weft and is shown with its stack.

/** Exit statuses of the weft command. */
export const ExitStatus = {
  /** every test passed */
  PASS: 0,
  /** a bug was found */
  BUG: 1,
  /** the input could not be used: one message says why */
  INPUT: 2,
  /** stopped by SIGINT (Ctrl-C) or SIGTERM, after reporting what was explored: the shell's 128 + SIGINT */
  INTERRUPTED: 130,
} as const;

export type WeftErrorCode =
  // the command line or an option value
  | 'usage' | 'option' | 'file-option'
  // building the harness (src/compile)
  | 'missing-file' | 'compile' | 'unsupported-symbol' | 'link' | 'no-tests' | 'toolchain' | 'cache'
  // replaying one execution
  | 'replay-format' | 'replay-changed'
  // the native addon: not built, or a harness library it cannot load
  | 'addon'
  // exploring: the harness behaves differently on one schedule, or needs more than weft can explore
  | 'nondeterministic' | 'limit'
  // a strategy that does not model an operation the harness uses (the graph engine, for now)
  | 'unsupported'
  // a worker process of a parallel search ended before the search did
  | 'worker'
  // weft merge: shard reports that do not make one exploration
  | 'shard';

/**
 * The classes an error was made as, its own and those it extends, by name: one process can
 * hold two copies of weft (the Vitest runtime's bundle beside the package's modules), and
 * `instanceof` holds across them. The native addon throws as whichever copy loaded it last.
 */
const madeAs = Symbol.for('weft.error.classes');

export class WeftError extends Error {
  /** what went wrong, for programs: stable across messages */
  readonly code: WeftErrorCode;
  /** the status `weft` exits with when this error ends it */
  readonly exitStatus: number = ExitStatus.INPUT;
  declare readonly [madeAs]: readonly string[];

  constructor(code: WeftErrorCode, message: string) {
    super(message);
    this.name = 'WeftError';
    this.code = code;
    const classes: string[] = [];
    for (let made: unknown = new.target; typeof made === 'function' && made !== Error; made = Object.getPrototypeOf(made)) classes.push(made.name);
    // not enumerable: not shown with the error; configurable: an error received from another process takes the sender's (receivedError)
    Object.defineProperty(this, madeAs, { value: classes, configurable: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof asks about, a subclass too
    return typeof value === 'object' && value !== null && ((value as Partial<WeftError>)[madeAs]?.includes(this.name) ?? false);
  }
}

export class OptionError extends WeftError {
  constructor(message: string, code: 'usage' | 'option' | 'file-option' = 'option') {
    super(code, message);
    this.name = 'OptionError';
  }
}

/** A WeftError as one process sends it to another (a worker's refusal: explore/parallel.ts). */
export interface SentError {
  code: WeftErrorCode;
  message: string;
  name: string;
  exitStatus: number;
  classes: readonly string[];
}

export function sentError(error: WeftError): SentError {
  return { code: error.code, message: error.message, name: error.name, exitStatus: error.exitStatus, classes: error[madeAs] };
}

/** The error another process sent, as the classes it was made as (instanceof holds for each). */
export function receivedError(sent: SentError): WeftError {
  const error = new WeftError(sent.code, sent.message);
  error.name = sent.name;
  Object.defineProperty(error, 'exitStatus', { value: sent.exitStatus });
  Object.defineProperty(error, madeAs, { value: sent.classes });
  return error;
}
