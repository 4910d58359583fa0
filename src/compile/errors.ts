// Why a harness could not be built. Every build failure is one of these: one clear
// message, and the source location when there is one.
import { WeftError, type WeftErrorCode } from '../errors.js';

export interface SourceLocation {
  file: string;
  line: number;
  column?: number;
}

export type BuildErrorCode = Extract<WeftErrorCode, 'missing-file' | 'compile' | 'unsupported-symbol' | 'link' | 'no-tests' | 'toolchain' | 'cache'>;

export class BuildError extends WeftError {
  constructor(
    code: BuildErrorCode,
    message: string,
    readonly location?: SourceLocation,
    /** the compiler's own output, when it has more to say */
    readonly details?: string,
    /** the files a failed compile read, when the compiler listed them (watch mode re-runs on their change) */
    readonly dependencies?: string[],
  ) {
    super(code, message);
    this.name = 'BuildError';
  }
}

const diagnostic = /^(.+?):(\d+):(?:(\d+):)? (?:fatal )?error: .*$/gm;

/** Every error of a gcc/clang diagnostic listing, as the compiler printed them, as one BuildError located at the first. */
export function compileError(stderr: string, fallbackFile: string, dependencies?: string[]): BuildError {
  const errors = [...stderr.matchAll(diagnostic)];
  const first = errors[0];
  if (!first) return new BuildError('compile', `cannot compile ${fallbackFile}: ${firstLine(stderr)}`, undefined, stderr, dependencies);
  const [, file, line, column] = first as unknown as [string, string, string, string | undefined];
  const location: SourceLocation = { file, line: Number(line) };
  if (column) location.column = Number(column);
  return new BuildError('compile', errors.map((error) => error[0]).join('\n'), location, stderr, dependencies);
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '')?.trim() ?? 'the compiler failed';
}
