/**
 * The node agent's own Prometheus metrics, beside the controller-runtime ones (runtime/metrics.ts):
 * how applies go and how long they take, which units the agent restarted, what the health check
 * found and did, and how long until a token file's credentials expire. One set per registry.
 */
import { readFile } from 'node:fs/promises';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { type Clock, realClock } from '../../runtime/clock.js';
import type { ApplyResult } from '../applier/apply-osc.js';
import { HostRoot } from '../applier/host-root.js';
import { avoidedRestarts } from '../planner/restarts-avoided.js';
import { type Systemd, systemdQueries } from '../systemd/systemd.js';
import { jwtExpirySeconds } from './token/jwt-expiry.js';

export type OscApplyResultLabel = 'applied' | 'up_to_date' | 'self_restart' | 'error';

export interface AgentMetrics {
  readonly registry: Registry;
  readonly oscApplyDuration: Histogram<'result'>;
  readonly oscApplies: Counter<'result'>;
  readonly unitRestarts: Counter<'unit'>;
  readonly unitReloads: Counter<'unit'>;
  /** Restarts a least-disruption apply did not do that an apply without policy would have. */
  readonly restartsAvoided: Counter<'by'>;
  readonly healthCheckFailures: Counter<'component'>;
  readonly healthCheckRestarts: Counter<'component'>;
  readonly tokenExpiresIn: Gauge<'path'>;
  /** Reports the JWT expiry of the token in host file `path` under `root`, read at each scrape. */
  trackTokenFile(root: string, path: string): void;
  readonly clientCertificateExpiresIn: Gauge;
  /** Records the expiry (ms since the epoch) of the per-node identity's client certificate. */
  trackClientCertificate(notAfter: number): void;
}

const byRegistry = new WeakMap<Registry, AgentMetrics>();

export function agentMetrics(registry: Registry, clock: Clock = realClock): AgentMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const tokenFiles = new Map<string, string>();
  let certificateNotAfter: number | undefined;
  const metrics: AgentMetrics = {
    registry,
    oscApplyDuration: new Histogram({
      name: 'gardener_node_agent_osc_apply_duration_seconds',
      help: 'Duration of applying an operating system config, by result',
      labelNames: ['result'],
      // image pulls and unit restarts make minutes possible
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    }),
    oscApplies: new Counter({
      name: 'gardener_node_agent_osc_applies_total',
      help: 'Operating system config applies, by result (applied, up_to_date, self_restart, error)',
      labelNames: ['result'],
      registers,
    }),
    unitRestarts: new Counter({
      name: 'gardener_node_agent_unit_restarts_total',
      help: 'systemd units restarted successfully by the node agent, by unit',
      labelNames: ['unit'],
      registers,
    }),
    unitReloads: new Counter({
      name: 'gardener_node_agent_unit_reloads_total',
      help: 'systemd units reloaded successfully by the node agent (least disruption), by unit',
      labelNames: ['unit'],
      registers,
    }),
    restartsAvoided: new Counter({
      name: 'gardener_node_agent_restarts_avoided_total',
      help: 'Unit restarts an apply without disruption policy would have done and this one did not, by what avoided it (semantic-diff, reload, rule)',
      labelNames: ['by'],
      registers,
    }),
    healthCheckFailures: new Counter({
      name: 'gardener_node_agent_health_check_failures_total',
      help: 'Failed health checks, by component (kubelet, containerd)',
      labelNames: ['component'],
      registers,
    }),
    healthCheckRestarts: new Counter({
      name: 'gardener_node_agent_health_check_restarts_total',
      help: 'Restarts by the health check after a sustained failure, by component',
      labelNames: ['component'],
      registers,
    }),
    tokenExpiresIn: new Gauge({
      name: 'gardener_node_agent_token_expires_in_seconds',
      help: 'Seconds until the token in a token file expires (JWT exp; absent for opaque or missing tokens)',
      labelNames: ['path'],
      registers,
      // computed at scrape time: a value stored at write time would go stale as the token ages
      async collect() {
        this.reset();
        const now = clock.now() / 1000;
        for (const [path, root] of tokenFiles) {
          const exp = await readTokenExpiry(root, path);
          if (exp !== undefined) this.set({ path }, exp - now);
        }
      },
    }),
    trackTokenFile: (root, path) => void tokenFiles.set(path, root),
    clientCertificateExpiresIn: new Gauge({
      name: 'gardener_node_agent_client_certificate_expires_in_seconds',
      help: 'Seconds until the client certificate of the per-node identity expires (absent without one)',
      registers,
      collect() {
        this.reset();
        if (certificateNotAfter !== undefined) this.set((certificateNotAfter - clock.now()) / 1000);
      },
    }),
    trackClientCertificate: (notAfter) => {
      certificateNotAfter = notAfter;
    },
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

/** A missing, unreadable or opaque token (or a path outside the root) has no expiry to report. */
async function readTokenExpiry(root: string, path: string): Promise<number | undefined> {
  try {
    return jwtExpirySeconds(await readFile(new HostRoot(root).path(path)));
  } catch {
    return undefined;
  }
}

function resultLabel(result: ApplyResult): OscApplyResultLabel {
  if (result.outcome === 'up-to-date') return 'up_to_date';
  if (result.outcome === 'exit-for-node-agent-restart') return 'self_restart';
  return 'applied';
}

/** Runs one apply, counting it and timing it by its result; without metrics it only runs it. */
export async function observeOscApply(
  metrics: AgentMetrics | undefined,
  apply: () => Promise<ApplyResult>,
): Promise<ApplyResult> {
  if (!metrics) return apply();
  const started = performance.now();
  let result: OscApplyResultLabel = 'error';
  try {
    const applied = await apply();
    result = resultLabel(applied);
    // counted once per plan: a resumed apply's plan was counted by the run that made it
    if (applied.outcome !== 'up-to-date' && !applied.resumed)
      for (const { by } of avoidedRestarts(applied.plan.disruption ?? []))
        metrics.restartsAvoided.inc({ by });
    return applied;
  } finally {
    metrics.oscApplies.inc({ result });
    metrics.oscApplyDuration.observe({ result }, (performance.now() - started) / 1000);
  }
}

/** The same Systemd, counting each successful restart by unit, whoever asked for it. */
export function countingRestarts(systemd: Systemd, metrics: AgentMetrics): Systemd {
  return {
    ...systemdQueries(systemd),
    daemonReload: () => systemd.daemonReload(),
    enable: (units) => systemd.enable(units),
    disable: (units) => systemd.disable(units),
    start: (unit) => systemd.start(unit),
    stop: (unit) => systemd.stop(unit),
    restart: async (unit) => {
      await systemd.restart(unit);
      metrics.unitRestarts.inc({ unit });
    },
    reload: async (unit) => {
      await systemd.reload(unit);
      metrics.unitReloads.inc({ unit });
    },
  };
}
