// Text rendering of results: a pass line per test, or the counterexample as a table
// with one column per thread, the source line of every step, the failing step last,
// the execution's own output and the replay string.
import pc from 'picocolors';

import type { CheckResult, TestResult } from '../check.js';
import type { Bug, BugStep } from './bug.js';

type Colors = ReturnType<typeof pc.createColors>;

export interface RenderOptions {
  color?: boolean;
}

const CELL = 26;
const MAX_ROWS = 400;

export function renderCheck(result: CheckResult, options: RenderOptions = {}): string {
  return result.tests.map((test) => renderTest(test, options)).join('\n');
}

export function renderTest(test: TestResult, options: RenderOptions = {}): string {
  const c = pc.createColors(options.color ?? pc.isColorSupported);
  const stats = `${test.executions} execution${test.executions === 1 ? '' : 's'} · ${formatMs(test.elapsedMs)}`;
  if (test.status === 'pass' && test.partial)
    return `${c.yellow('~')} ${test.name}  ${c.yellow(`partial: ${test.guarantee}`)}${c.dim(` · ${stats}`)}${renderWarnings(test, c)}`;
  if (test.status === 'pass')
    return `${c.green('✓')} ${test.name}  ${c.dim(`${stats} · ${test.guarantee}`)}${renderWarnings(test, c)}`;
  if (test.status === 'error') return `${c.red('✗')} ${test.name}  ${c.red(test.error ?? 'error')}`;
  const bug = test.bug!;
  return `${c.red('✗')} ${test.name}  ${c.dim(stats)}\n${indent(renderBug(bug, options))}${renderWarnings(test, c)}`;
}

function renderWarnings(test: TestResult, c: Colors): string {
  return (test.warnings ?? []).map((warning) => `\n  ${c.yellow('warning:')} ${warning.message}`).join('');
}

function headline(bug: Bug): string {
  switch (bug.kind) {
    case 'assertion':
      return `assertion failed: ${bug.message}`;
    case 'deadlock':
    case 'livelock':
    case 'step-limit':
    case 'race':
      return bug.message;
    default:
      return `${bug.kind}: ${bug.message}`;
  }
}

export function renderBug(bug: Bug, options: RenderOptions = {}): string {
  const c = pc.createColors(options.color ?? pc.isColorSupported);
  const where = bug.location ? ` at ${bug.location.file}:${bug.location.line}` : '';
  const preemptions = `${bug.preemptions} preemption${bug.preemptions === 1 ? '' : 's'}`;
  const lines = [
    c.bold(c.red(headline(bug))),
    c.dim(`${where.trim()}${bug.thread >= 0 ? ` in thread T${bug.thread}` : ''} · ${preemptions}`),
    '',
    ...renderTable(bug, c),
  ];
  const unfinished = bug.threads.filter((thread) => thread.state !== 'finished');
  if (bug.kind === 'deadlock' || bug.kind === 'livelock' || bug.kind === 'step-limit' || bug.kind === 'hang') {
    lines.push('', c.bold('threads at the end:'));
    for (const thread of unfinished)
      lines.push(`  T${thread.thread} ${thread.state}: ${thread.waitingFor}${thread.location ? ` at ${thread.location.file}:${thread.location.line}` : ''}${thread.source ? c.dim(`  ${thread.source}`) : ''}`);
  }
  if (bug.output) lines.push('', c.bold('output of this execution:'), ...bug.output.replace(/\n$/, '').split('\n').map((line) => `  ${line}`));
  lines.push('', `${c.bold('replay:')} ${bug.schedule}`);
  if (bug.consequence)
    lines.push('', c.bold(`what the race breaks, with ${bug.race?.variable ?? 'the racy location'} as a scheduling point:`), indent(renderBug(bug.consequence, options)));
  return lines.join('\n');
}

function renderTable(bug: Bug, c: Colors): string[] {
  const threadCount = Math.max(1, ...bug.steps.map((step) => step.thread + 1), bug.threads.length);
  const header = `${'step'.padStart(5)}  ${Array.from({ length: threadCount }, (_, t) => `T${t}`.padEnd(CELL)).join('')}source`;
  const rows = bug.steps.slice(-MAX_ROWS).map((step, index, shown) => renderRow(step, threadCount, index === shown.length - 1, c));
  const omitted = bug.steps.length - Math.min(bug.steps.length, MAX_ROWS);
  return [
    c.dim(header),
    ...(omitted > 0 ? [c.dim(`  … ${omitted} earlier steps not shown`)] : []),
    ...rows,
    c.dim(`  ${c.yellow('»')} = preemption (switch away from a thread that could have continued)`),
  ];
}

function renderRow(step: BugStep, threadCount: number, last: boolean, c: Colors): string {
  let text = step.op;
  if (step.target !== undefined) text += ` ${step.target}`;
  if (step.value !== undefined) text += step.op === 'choose' ? ` → ${step.value}` : ` = ${step.value}`;
  const cells = Array.from({ length: threadCount }, (_, t) => (t === step.thread ? fit(text) : ''.padEnd(CELL)));
  const location = step.location ? `${step.location.file}:${step.location.line}` : '';
  const marker = step.preemption ? c.yellow('»') : ' ';
  const row = `${marker}${String(step.step).padStart(4)}  ${cells.join('')}${c.dim(location)}${step.source ? `  ${step.source}` : ''}`;
  return last ? c.red(row) : row;
}

function fit(text: string): string {
  return text.length >= CELL - 1 ? `${text.slice(0, CELL - 2)}… ` : text.padEnd(CELL);
}

function indent(text: string): string {
  return text.split('\n').map((line) => (line ? `  ${line}` : line)).join('\n');
}

export function formatMs(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}
