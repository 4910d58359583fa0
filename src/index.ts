// weft's programmatic API.
export {
  type CheckOptions, type CheckResult, type Mode, type TestResult, OptionError, checkAllInterleavings, defaults,
} from './check.js';
export { BuildError, type SourceLocation } from './build/errors.js';
export type { Bug, BugLocation, BugStep, ThreadAtEnd } from './report/bug.js';
export { renderBug, renderCheck, renderTest } from './report/render.js';
export { decodeReplay, encodeReplay } from './report/replay.js';
export { toJson } from './report/json.js';
