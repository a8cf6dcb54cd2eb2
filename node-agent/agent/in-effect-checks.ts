/**
 * What the agent asks after an apply to prove it is in effect (docs/node-agent.md#in-effect): the
 * kubelet's configz (with the shared token on the loopback, or with the per-node identity through
 * the API server: configz-fetch.ts), the kernel's /proc/sys, and `containerd config dump` where the
 * agent writes containerd's config.toml (v1.150 pools); a failed unit's reason from its journal.
 * Only when the agent manages the machine (its root is `/`), as its health
 * probes, and unless its environment says `GARDENER_NODE_AGENT_IN_EFFECT_CHECKS=off` (a machine
 * whose kubelet is a stand-in, hack/real-node); tests give fakes (`inEffectChecks`) or none.
 */
import { resolve } from 'node:path';
import { PATH } from '../../api/index.js';
import { HostRoot } from '../applier/host-root.js';
import {
  type ConfigzFetch,
  configzOverHttps,
  configzThroughApiServer,
} from '../controllers/operatingsystemconfig/in-effect/configz-fetch.js';
import {
  containerdConfigDumpCheck,
  hostConfigDump,
} from '../controllers/operatingsystemconfig/in-effect/containerd-config-dump.js';
import type { InEffectCheck } from '../controllers/operatingsystemconfig/in-effect/in-effect-check.js';
import { kubeletConfigzCheck } from '../controllers/operatingsystemconfig/in-effect/kubelet-configz.js';
import { sysctlReadback } from '../controllers/operatingsystemconfig/in-effect/sysctl-readback.js';
import {
  journalUnitReason,
  type UnitReason,
} from '../controllers/operatingsystemconfig/in-effect/unit-journal-reason.js';
import type { AgentContext } from './agent-context.js';

export const IN_EFFECT_CHECKS_ENV = 'GARDENER_NODE_AGENT_IN_EFFECT_CHECKS';

export function inEffect(agent: Pick<AgentContext, 'options' | 'http' | 'nodeIdentity' | 'nodes'>): {
  inEffectChecks?: readonly InEffectCheck[];
  unitReason?: UnitReason;
} {
  const o = agent.options;
  if (o.inEffectChecks === false) return {};
  if (o.inEffectChecks) return { inEffectChecks: o.inEffectChecks };
  if (resolve(o.root) !== '/') return {};
  if ((o.env ?? process.env)[IN_EFFECT_CHECKS_ENV] === 'off') return {};
  const configz: ConfigzFetch = agent.nodeIdentity
    ? configzThroughApiServer(agent.http, () => agent.nodes.list()[0]?.metadata?.name ?? agent.nodeIdentity)
    : configzOverHttps(new HostRoot(o.root).path(PATH.nodeAgentToken));
  return {
    inEffectChecks: [
      kubeletConfigzCheck(configz),
      sysctlReadback(o.root),
      containerdConfigDumpCheck({ root: o.root, dump: hostConfigDump(o.env) }),
    ],
    unitReason: journalUnitReason(o.env),
  };
}
