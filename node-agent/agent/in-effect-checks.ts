/**
 * What the agent asks after an apply to prove it is in effect (docs/node-agent.md#in-effect): the
 * kubelet's configz with the agent's own token, the kernel's /proc/sys, and `containerd config
 * dump` where the agent writes containerd's config.toml (v1.150 pools); a failed unit's reason
 * from its journal. Only when the agent manages the machine (its root is `/`), as its health
 * probes, and unless its environment says `GARDENER_NODE_AGENT_IN_EFFECT_CHECKS=off` (a machine
 * whose kubelet is a stand-in, hack/real-node); tests give fakes (`inEffectChecks`) or none.
 */
import { resolve } from 'node:path';
import { PATH } from '../../api/index.js';
import { HostRoot } from '../applier/host-root.js';
import {
  containerdConfigDumpCheck,
  hostConfigDump,
} from '../controllers/operatingsystemconfig/in-effect/containerd-config-dump.js';
import type { InEffectCheck } from '../controllers/operatingsystemconfig/in-effect/in-effect-check.js';
import {
  configzOverHttps,
  identityKubeconfigCredentials,
  kubeletConfigzCheck,
  tokenFileCredentials,
} from '../controllers/operatingsystemconfig/in-effect/kubelet-configz.js';
import { sysctlReadback } from '../controllers/operatingsystemconfig/in-effect/sysctl-readback.js';
import {
  journalUnitReason,
  type UnitReason,
} from '../controllers/operatingsystemconfig/in-effect/unit-journal-reason.js';
import type { AgentOptions } from './agent-options.js';
import { usesNodeIdentity } from './rest-config.js';

export const IN_EFFECT_CHECKS_ENV = 'GARDENER_NODE_AGENT_IN_EFFECT_CHECKS';

export function inEffect(o: AgentOptions): {
  inEffectChecks?: readonly InEffectCheck[];
  unitReason?: UnitReason;
} {
  if (o.inEffectChecks === false) return {};
  if (o.inEffectChecks) return { inEffectChecks: o.inEffectChecks };
  if (resolve(o.root) !== '/') return {};
  if ((o.env ?? process.env)[IN_EFFECT_CHECKS_ENV] === 'off') return {};
  const host = new HostRoot(o.root);
  // a per-node identity has no token file: the kubelet is shown the identity's client certificate
  const credentials = usesNodeIdentity(o.config, o.env ?? process.env, o.contract)
    ? identityKubeconfigCredentials(host.path(PATH.nodeAgentKubeconfig))
    : tokenFileCredentials(host.path(PATH.nodeAgentToken));
  return {
    inEffectChecks: [
      kubeletConfigzCheck(configzOverHttps(credentials)),
      sysctlReadback(o.root),
      containerdConfigDumpCheck({ root: o.root, dump: hostConfigDump(o.env) }),
    ],
    unitReason: journalUnitReason(o.env),
  };
}
