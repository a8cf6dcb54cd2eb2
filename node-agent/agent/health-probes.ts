/**
 * What the agent's health check probes, and what judges each apply after its settle time: the
 * machine's own kubelet and containerd, only when the agent manages the machine (its root is `/`).
 */
import { resolve } from 'node:path';
import type { ContainerdCheck } from '../controllers/healthcheck/containerd-health.js';
import { ctrVersionCheck } from '../controllers/healthcheck/ctr-version-check.js';
import { KUBELET_HEALTHZ_URL, kubeletHealthzProbe } from '../controllers/healthcheck/kubelet-healthz.js';
import type { VerifyProbe } from '../controllers/operatingsystemconfig/verify-apply.js';
import type { AgentOptions } from './agent-options.js';

export interface HealthProbes {
  readonly kubeletHealthzUrl?: string;
  readonly containerdCheck?: ContainerdCheck;
}

export function healthProbes(o: AgentOptions): HealthProbes {
  const onHost = resolve(o.root) === '/';
  const url = o.kubeletHealthzUrl ?? (onHost ? KUBELET_HEALTHZ_URL : false);
  const containerd = o.containerdCheck ?? (onHost ? ctrVersionCheck({ env: o.env }) : false);
  return {
    kubeletHealthzUrl: url === false ? undefined : url,
    containerdCheck: containerd === false ? undefined : containerd,
  };
}

/** The probes the health check runs judge every apply too. */
export function verifyProbes(probes: HealthProbes): VerifyProbe[] {
  return [
    ...(probes.kubeletHealthzUrl
      ? [{ name: 'kubelet', check: kubeletHealthzProbe(probes.kubeletHealthzUrl) }]
      : []),
    ...(probes.containerdCheck ? [{ name: 'containerd', check: probes.containerdCheck }] : []),
  ];
}
