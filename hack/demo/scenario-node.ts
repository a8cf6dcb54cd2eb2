/**
 * What the scenario's steps ask of a worker node, whichever kind it is: a simulated root with
 * recorded systemd (node.ts, the default) or a real node, an nspawn container with systemd as its
 * PID 1 (real-demo-node.ts, `--real-nodes`).
 */
import type { OperatingSystemConfig } from '../../api/index.js';
import type { RecordedSystemdOp } from '../node-agent-doubles/recording-systemd.js';
import type { LegacyState, NodeSpec } from './node.js';

export interface NodeInit {
  /** The agent's config file, from the pool's reconcile OSC. */
  readonly configYaml: string;
  readonly initScript?: string;
  /** The image the agent is taken from. */
  readonly agentImage: string;
  /** The pool's reconcile OSC (the images it names, the agent's unit). */
  readonly osc: OperatingSystemConfig;
}

export interface ScenarioNode {
  readonly spec: NodeSpec;
  readonly name: string;
  /** Why the agent cannot run (crash loop), for the waits to fail with. */
  readonly fatal: string | undefined;
  /** When systemd started the agent (epoch ms). */
  readonly agentStarts: readonly number[];
  /** The agent exited once so that systemd restarts it (its unit changed). */
  readonly agentRestartedItself: boolean;
  /** Gives the node the legacy cloud-config-downloader's state (a real node boots with it). */
  writeLegacyState(state: LegacyState): void | Promise<void>;
  hasLegacyState(): boolean;
  /** node-init's steps, which hand over to gardener-node-agent.service. */
  nodeInit(o: NodeInit): Promise<void>;
  /** Reads what systemd did since the last call; ops() tells it. */
  refresh(): Promise<void>;
  /** The systemd calls (with times) from index `from` on, as of the last refresh. */
  ops(from?: number): RecordedSystemdOp[];
  readRootFile(path: string): string | undefined;
  /** The user its identity kubeconfig authenticates as (its client certificate's CN), if any. */
  identity(): string | undefined;
  /** A file with the node's identity kubeconfig that reaches the shoot API server from this machine. */
  identityKubeconfig(): string;
  stop(): Promise<void>;
}
