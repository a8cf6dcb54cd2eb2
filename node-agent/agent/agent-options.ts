/** How `gardener-node-agent run` is started: its configuration and what tests and tools override. */

import type { GardenerVersion, NodeAgentConfiguration } from '../../api/index.js';
import type { Logger } from '../../runtime/logging.js';
import type { ContainerdTool } from '../containerd/containerd-tool.js';
import type { ContainerdCheck } from '../controllers/healthcheck/containerd-health.js';
import type { InEffectCheck } from '../controllers/operatingsystemconfig/in-effect/in-effect-check.js';
import type { DisruptionPolicy } from '../planner/disruption-policy.js';
import type { ImageExtractor } from '../registry/image-extractor.js';
import type { Systemd } from '../systemd/systemd.js';

export interface AgentOptions {
  readonly config: NodeAgentConfiguration;
  readonly root: string;
  readonly systemd: Systemd;
  readonly images: ImageExtractor;
  readonly log: Logger;
  readonly env?: NodeJS.ProcessEnv;
  /** Overrides the hostname lookup (many agents on one machine). */
  readonly nodeName?: string;
  readonly healthPort?: number;
  readonly metricsPort?: number;
  readonly hostnameCheckIntervalMs?: number;
  /**
   * The kubelet endpoint the health check probes; `false`: no kubelet check. Default: the
   * kubelet's /healthz when the root is `/`, else none (a tree in a temp dir has no kubelet).
   */
  readonly kubeletHealthzUrl?: string | false;
  /** How the health check asks containerd; `false`: not at all. Default: `ctr version` when the root is `/`. */
  readonly containerdCheck?: ContainerdCheck | false;
  readonly healthCheckIntervalMs?: number;
  /** How long after an apply its restarted units and the health checks are judged (default 10 s). */
  readonly applySettleMs?: number;
  /**
   * What proves an apply in effect (docs/node-agent.md#in-effect); false: nothing. Default: the
   * kubelet's configz and /proc/sys when the root is `/`, else nothing.
   */
  readonly inEffectChecks?: readonly InEffectCheck[] | false;
  /** Go back to the OSC the node ran before when an apply fails its verification. */
  readonly revertFailedApplies?: boolean;
  /**
   * The drift monitor's periodic full check (controllers/drift, docs/node-agent.md#drift), beside
   * its inotify watch; `false`: no drift monitor. Default: every minute when the root is `/`, else
   * none (controllers/drift/drift-interval.ts).
   */
  readonly driftCheckIntervalMs?: number | false;
  /**
   * Least disruption (docs/least-disruption.md): unit commands as the decision for this policy
   * picks them. Absent: every changed unit restarts, as upstream (`--disruption-policy none`);
   * `run` passes the built-in rules unless told otherwise (cli/disruption-policy-flag.ts).
   */
  readonly disruptionPolicy?: DisruptionPolicy;
  /**
   * The containerd a v1.150.0 OSC hands its configuration to (`criConfig.containerd`). Default:
   * this machine's when the root is `/`, else none (such an OSC then fails to apply).
   */
  readonly containerd?: ContainerdTool;
  /** The contract of the configuration (decided by what the config file holds; default v1.91.4). */
  readonly contract?: GardenerVersion;
  /** The configuration file read (not standard input): v1.150.0's secret-name change rewrites it. */
  readonly configFile?: string;
}
