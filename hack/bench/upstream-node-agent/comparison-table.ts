/**
 * The report of the upstream-agent benchmark: the agents side by side, as Markdown tables, with
 * the ratio of each of ours against upstream's agent measured in the same run on the same node.
 */
import type { MemorySummary } from './proc-status.js';

export interface StepResult {
  /** What the step changes, e.g. `kubelet maxPods 110 → 111`. */
  readonly step: string;
  /** From the secret's update (the API server's answer) to the Node's checksum annotation, ms. */
  readonly annotationMs: number | undefined;
  /** From the secret's update to the start of the last unit job the apply caused, ms (none: undefined). */
  readonly lastJobMs: number | undefined;
  /**
   * From the secret's update to the agent's final verdict on the Node (ours: Succeeded or Failed after
   * its settle time and in-effect checks; upstream reports none: undefined).
   */
  readonly verdictMs: number | undefined;
  /** Units whose InvocationID a job changed, sorted. */
  readonly restarted: readonly string[];
}

export interface AgentRun {
  /** e.g. `ours --disruption-policy none`, `upstream v1.91.4`. */
  readonly agent: string;
  /** Right after its start on a node that is up to date. */
  readonly idle: MemorySummary;
  /** After the sequence, at rest again. */
  readonly atRest: MemorySummary;
  readonly steps: readonly StepResult[];
}

/** kB (KiB, as /proc says) in MB (10^6 bytes), one decimal. */
export function mb(kb: number): string {
  return ((kb * 1024) / 1e6).toFixed(1);
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? '–' : (ms / 1000).toFixed(2);
}

function ratio(ours: number, theirs: number): string {
  return theirs > 0 ? `${(ours / theirs).toFixed(2)}×` : '–';
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function header(cells: readonly string[]): string {
  return `${row(cells)}\n${row(cells.map(() => '---'))}`;
}

/** The agent run named `agent`; throws naming the agents there are. */
function runOf(runs: readonly AgentRun[], agent: string): AgentRun {
  const run = runs.find((r) => r.agent === agent);
  if (!run) throw new Error(`no run of ${agent} among ${runs.map((r) => r.agent).join(', ')}`);
  return run;
}

/** Idle and at-rest memory of each agent, and its VmRSS and RssAnon against the baseline's. */
export function memoryTable(runs: readonly AgentRun[], baseline: string): string {
  const base = runOf(runs, baseline);
  const lines = [
    header([
      'agent',
      'idle VmRSS MB (min–max)',
      'idle RssAnon MB',
      'idle RssShmem + RssFile MB',
      `idle VmRSS, RssAnon vs ${baseline}`,
      'at rest after the sequence: VmRSS / RssAnon MB',
      'VmHWM MB',
    ]),
  ];
  for (const r of runs) {
    const m = r.idle.median;
    lines.push(
      row([
        r.agent,
        `${mb(m.rssKb)} (${mb(r.idle.rssRangeKb[0])}–${mb(r.idle.rssRangeKb[1])})`,
        mb(m.anonKb),
        mb(m.shmemKb + m.fileKb),
        `${ratio(m.rssKb, base.idle.median.rssKb)}, ${ratio(m.anonKb, base.idle.median.anonKb)}`,
        `${mb(r.atRest.median.rssKb)} / ${mb(r.atRest.median.anonKb)}`,
        mb(r.atRest.median.peakKb),
      ]),
    );
  }
  return lines.join('\n');
}

/** The step names, the same in every run and order; throws when a run differs. */
function stepsOf(runs: readonly AgentRun[]): string[] {
  const steps = runs[0]?.steps.map((s) => s.step) ?? [];
  for (const r of runs) {
    const own = r.steps.map((s) => s.step);
    if (own.join('\n') !== steps.join('\n'))
      throw new Error(`${r.agent} ran other steps (${own.join(', ')}) than ${runs[0]!.agent}`);
  }
  return steps;
}

/** Per step and agent: seconds to the Node annotation, to the last unit job and to the verdict. */
export function latencyTable(runs: readonly AgentRun[]): string {
  const lines = [header(['step', ...runs.map((r) => `${r.agent}: annotation / last job / verdict, s`)])];
  stepsOf(runs).forEach((step, i) => {
    lines.push(
      row([
        step,
        ...runs.map((r) => {
          const s = r.steps[i]!;
          return `${seconds(s.annotationMs)} / ${seconds(s.lastJobMs)} / ${seconds(s.verdictMs)}`;
        }),
      ]),
    );
  });
  return lines.join('\n');
}

/** Per step and agent: the units the apply restarted (a new InvocationID by a job). */
export function restartTable(runs: readonly AgentRun[]): string {
  const lines = [header(['step', ...runs.map((r) => `${r.agent}: units restarted`)])];
  stepsOf(runs).forEach((step, i) => {
    lines.push(
      row([
        step,
        ...runs.map((r) => {
          const units = r.steps[i]!.restarted;
          return units.length === 0 ? 'none' : units.join(', ');
        }),
      ]),
    );
  });
  return lines.join('\n');
}
