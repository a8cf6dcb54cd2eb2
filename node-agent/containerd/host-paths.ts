/**
 * Where a host path lives under the agent's root: what containerd's writers need of the applier's
 * `HostRoot` (node-agent/applier/host-root.ts), which satisfies it, so this folder stays below
 * the applier.
 */
export interface HostPaths {
  /** The absolute path of host path `hostPath` under the root; throws for a path that is not one. */
  path(hostPath: string): string;
}
