/**
 * What drift detection leaves alone, one list with the reason for each: files that a unit or the
 * agent itself rewrites by design, and what other software owns. A path here is never reported,
 * repaired or adopted; everything else the last apply wrote is compared (drift-detect.ts).
 */
import { PATH } from '../../api/index.js';
import { pathMatches } from '../planner/disruption-policy.js';
import { AGENT_STATE_PATHS } from './written-paths.js';

export interface DriftExclusion {
  /** A host path; `*` within one segment, a trailing `/**` for everything below. */
  readonly path: string;
  readonly reason: string;
}

export const DRIFT_EXCLUSIONS: readonly DriftExclusion[] = [
  {
    path: PATH.nodeAgentBootstrapToken,
    reason: 'the agent deletes it once it has its own credentials (node-agent/bootstrap)',
  },
  { path: PATH.nodeAgentToken, reason: 'the token controller rewrites it (node-agent/controllers/token)' },
  {
    path: PATH.kubeletBootstrapKubeconfig,
    reason: 'kubelet stops needing it once it has a client certificate; the bootstrap removes it',
  },
  { path: PATH.valitailAuthToken, reason: 'the token controller rewrites it (node-agent/controllers/token)' },
  { path: PATH.downloaderToken, reason: 'the legacy cloud-config-downloader rewrites it during a migration' },
  {
    path: '/etc/containerd/config.toml',
    reason: "the agent merges the OSC's containerd settings into it after the apply (node-agent/containerd)",
  },
  ...AGENT_STATE_PATHS.map((path) => ({ path, reason: "the node agent's own state, not the OSC's" })),
];

export function driftExclusion(path: string): DriftExclusion | undefined {
  return DRIFT_EXCLUSIONS.find((e) => pathMatches(e.path, path));
}
