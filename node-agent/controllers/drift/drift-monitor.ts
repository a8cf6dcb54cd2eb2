/**
 * The running agent's drift monitor (docs/node-agent.md#drift): checks the node against the last
 * applied OSC when the inotify watch (drift-watcher.ts) sees a managed path change and every
 * `intervalMs` as a safety net. Each check reports on the Node: the condition
 * `NodeConfigurationDrift` (drift-condition.ts), a Warning Event per new drift, metrics; and
 * repairs what the drift policy repairs, through applyOsc (prepare-then-commit, crash journal,
 * least disruption), unless the rollout gate has not permitted this node's current change or the
 * rollout is halted on it (repair-permission.ts): then it reports only.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { EventSink } from '../../../runtime/events.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import { applyOsc } from '../../applier/apply-osc.js';
import { refreshFromNode } from '../../applier/drift-refresh.js';
import { oscForHost } from '../../applier/files-for-host.js';
import { HostRoot } from '../../applier/host-root.js';
import { decodeLastApplied, readLastAppliedText } from '../../applier/last-applied.js';
import { readProgress } from '../../applier/progress-file.js';
import { writtenPaths } from '../../applier/written-paths.js';
import type { ContainerdTool } from '../../containerd/containerd-tool.js';
import type { DisruptionPolicy } from '../../planner/disruption-policy.js';
import { driftKey, driftText } from '../../planner/drift.js';
import type { DriftDecision } from '../../planner/drift-policy.js';
import type { ImageExtractor } from '../../registry/image-extractor.js';
import type { Systemd } from '../../systemd/systemd.js';
import { DRIFT_CONDITION_TYPE, driftCondition } from './drift-condition.js';
import type { DriftMetrics } from './drift-metrics.js';
import { DriftWatcher } from './drift-watcher.js';
import { repairPermission } from './repair-permission.js';

export const DRIFT_FIELD_MANAGER = 'gardener-node-agent-drift';
export const DRIFT_EVENT_REASON = {
  drift: 'ConfigurationDrift',
  repaired: 'ConfigurationDriftRepaired',
} as const;
/** The events.k8s.io/v1 action of drift events (ours: upstream has no drift check). */
export const DRIFT_EVENT_ACTION = 'DriftCheck';

export interface DriftMonitorOptions {
  readonly root: string;
  readonly systemd: Systemd;
  readonly images: ImageExtractor;
  readonly node: () => V1Node | undefined;
  readonly client?: Pick<KubeClient, 'apply'>;
  readonly recorder?: EventSink;
  readonly metrics: DriftMetrics;
  readonly disruptionPolicy?: DisruptionPolicy;
  readonly hostName: string;
  /** The containerd a v1.150.0 OSC configures, as the OSC controller has it. */
  readonly containerd?: ContainerdTool;
  readonly intervalMs: number;
  readonly log?: Logger;
  /** Off in tests that drive `check` themselves. */
  readonly watch?: boolean;
  readonly now?: () => number;
}

export interface CheckOutcome {
  /** What the check found, with the policy's decision. */
  readonly found: readonly DriftDecision[];
  /** What is still there after the check (a repair ran or not), adopted drift left out. */
  readonly open: readonly DriftDecision[];
  /** A repair ran and succeeded. */
  readonly repaired: boolean;
  /** Why nothing was repaired: a rollout, a halt, a failed repair. */
  readonly held?: string;
}

const notAdopted = (decisions: readonly DriftDecision[]) => decisions.filter((d) => d.action !== 'Adopt');

export class DriftMonitor {
  private readonly host: HostRoot;
  private readonly log: Logger;
  private readonly watcher: DriftWatcher | undefined;
  private known = new Set<string>();
  private running: Promise<CheckOutcome | undefined> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  /** The first check after start reports only (see start). */
  private reportOnlyOnce = false;

  constructor(private readonly o: DriftMonitorOptions) {
    this.host = new HostRoot(o.root);
    this.log = o.log ?? silentLogger;
    if (o.watch !== false) {
      this.watcher = new DriftWatcher({
        root: o.root,
        onChange: (at) => void this.trigger(at),
        onFallback: (reason) => {
          o.metrics.watchActive.set(0);
          this.log.error(
            { reason, intervalMs: o.intervalMs },
            'Drift watch stopped, the periodic check alone detects drift now',
          );
        },
      });
      o.metrics.watchActive.set(1);
    }
  }

  get watching(): DriftWatcher | undefined {
    return this.watcher;
  }

  /**
   * Checks now and every `intervalMs`. The check at start reports but does not repair: the OSC
   * controller reconciles at start too, and when it applies a newer OSC a repair to the last one
   * first would restart the same units twice; what is still drifted after that apply is repaired
   * by the next check (the one that follows every finished apply, an inotify-seen change, or the
   * interval).
   */
  start(signal: AbortSignal): void {
    this.reportOnlyOnce = true;
    const tick = () => {
      void this.trigger().finally(() => {
        if (!signal.aborted) this.timer = setTimeout(tick, this.o.intervalMs);
      });
    };
    tick();
    signal.addEventListener('abort', () => this.stop(), { once: true });
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
  }

  /** Resolves once no check runs: the one running and the one it queued. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** One check now, or once more after the one running (changes during a check are not lost). */
  async trigger(changedAt?: number): Promise<CheckOutcome | undefined> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.check(changedAt).finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.trigger();
      }
    });
    return this.running;
  }

  async check(changedAt?: number): Promise<CheckOutcome | undefined> {
    try {
      return await this.checkOnce(changedAt);
    } catch (e) {
      this.log.error({ err: e }, 'Drift check failed');
      return undefined;
    }
  }

  private async checkOnce(changedAt?: number): Promise<CheckOutcome | undefined> {
    // the first check after start, whichever way it ends (an apply in flight ends it early)
    const reportOnly = this.reportOnlyOnce;
    this.reportOnlyOnce = false;
    const text = await readLastAppliedText(this.host);
    const decoded = text === undefined ? undefined : decodeLastApplied(text);
    const osc = decoded && 'osc' in decoded ? oscForHost(decoded.osc, this.o.hostName) : undefined;
    // watched even while an apply runs (an agent restarted by its own apply starts in one): an
    // edit after it ends is seen at once, not at the next periodic check
    this.watcher?.update((osc ? writtenPaths(osc) : []).filter((p) => p.kind !== 'state').map((p) => p.path));
    if (text === undefined || osc === undefined) return undefined;
    // an apply in flight (or cut off) owns the node until it finishes; the next check follows it
    if (await readProgress(this.host).catch(() => undefined)) return undefined;
    const refresh = await refreshFromNode({
      host: this.host,
      previous: osc,
      systemd: this.o.systemd,
      rules: this.o.disruptionPolicy?.drift,
      recordAdoptions: true,
    });
    if (changedAt !== undefined && refresh.decisions.length > 0)
      this.o.metrics.detectionLatency.observe(((this.o.now ?? Date.now)() - changedAt) / 1000);
    const permission = reportOnly
      ? { repair: false, reason: 'the agent has just started: the OSC controller applies first' }
      : repairPermission(this.o.node());
    let outcome: CheckOutcome = {
      found: refresh.decisions,
      open: notAdopted(refresh.decisions),
      repaired: false,
    };
    if (refresh.repairs.length > 0 && !permission.repair) outcome = { ...outcome, held: permission.reason };
    else if (refresh.repairs.length > 0) outcome = await this.repair(text, osc, refresh.decisions);
    await this.report(outcome);
    return outcome;
  }

  private async repair(
    text: string,
    osc: Parameters<typeof refreshFromNode>[0]['previous'],
    found: readonly DriftDecision[],
  ): Promise<CheckOutcome> {
    try {
      const applied = await applyOsc({
        root: this.o.root,
        oscText: text,
        systemd: this.o.systemd,
        images: this.o.images,
        logger: this.log,
        disruptionPolicy: this.o.disruptionPolicy,
        hostName: this.o.hostName,
        containerd: this.o.containerd,
        onNodeAgentRestart: 'continue',
        drift: 'repair',
      });
      this.o.metrics.repairs.inc({ result: 'repaired' });
      // the agent does not end itself for a repair of its own unit: that waits for its next restart
      if (applied.nodeAgentRestartRequired)
        this.log.info('Repaired the node agent unit, it takes effect when the agent restarts next');
      // the second pass: what the policy reports, and anything the repair could not fix
      const after = await refreshFromNode({
        host: this.host,
        previous: osc,
        systemd: this.o.systemd,
        rules: this.o.disruptionPolicy?.drift,
        recordAdoptions: false,
      });
      return { found, open: notAdopted(after.decisions), repaired: true };
    } catch (e) {
      this.o.metrics.repairs.inc({ result: 'failed' });
      this.log.error({ err: e }, 'Drift repair failed');
      const held = `repair failed: ${(e as Error).message.split('\n')[0]}`;
      return { found, open: notAdopted(found), repaired: false, held };
    }
  }

  private async report(outcome: CheckOutcome): Promise<void> {
    for (const action of ['Report', 'Repair'] as const)
      this.o.metrics.drifted.set({ action }, outcome.open.filter((d) => d.action === action).length);
    const node = this.o.node();
    const keys = new Set(outcome.found.map((d) => driftKey(d.drift)));
    const fresh = outcome.found.filter((d) => !this.known.has(driftKey(d.drift)));
    this.known = keys;
    if (!node?.metadata?.name) return;
    const ref = { kind: 'Node', name: node.metadata.name, uid: node.metadata.uid };
    for (const d of fresh)
      await this.o.recorder?.event(
        ref,
        'Warning',
        DRIFT_EVENT_REASON.drift,
        `${driftText(d.drift)}: ${d.action} (${d.why})`,
        DRIFT_EVENT_ACTION,
      );
    if (outcome.repaired && fresh.length > 0)
      await this.o.recorder?.event(
        ref,
        'Normal',
        DRIFT_EVENT_REASON.repaired,
        `repaired ${fresh.length} drift(s)`,
        DRIFT_EVENT_ACTION,
      );
    const previous = node.status?.conditions?.find((c) => c.type === DRIFT_CONDITION_TYPE);
    const condition = driftCondition(outcome, new Date((this.o.now ?? Date.now)()), previous);
    if (previous?.status === condition.status && previous.message === condition.message) return;
    await this.o.client?.apply(
      RESOURCE.node,
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: node.metadata.name },
        status: { conditions: [condition] },
      },
      { subresource: 'status', fieldManager: DRIFT_FIELD_MANAGER, force: true },
    );
  }
}
