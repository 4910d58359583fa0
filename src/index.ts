// weft's programmatic API.
export { type CheckOptions, type CheckResult, type Mode, type TestResult, checkAllInterleavings } from './check.js';
export { ExitStatus, OptionError, WeftError, type WeftErrorCode } from './errors.js';
export { type PluginOptions, defaults, optionSchema } from './options.js';
export { BuildError, type SourceLocation } from './compile/errors.js';
export type { Bug, BugLocation, BugStep, ThreadAtEnd } from './report/bug.js';
export { renderBug, renderCheck, renderTest } from './report/render.js';
export { ReplayFormatError, decodeReplay, encodeReplay } from './report/replay.js';
export { toJson } from './report/json.js';
export { ShardMergeError, type ShardFileReport, mergeShards, readShardReport } from './report/merge.js';
