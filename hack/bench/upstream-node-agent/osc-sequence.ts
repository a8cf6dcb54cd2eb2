/**
 * The OSC changes both agents apply, one after another from the pool's published OSC, as gardenlet
 * would publish them: a kubelet configuration change, a comment-only unit change, a sysctl change
 * and a file no unit lists. Each kind is one where least disruption (docs/least-disruption.md) and
 * upstream's agent may restart different units.
 */
import type { OperatingSystemConfig } from '../../../api/index.js';
import { appendToFile, editUnit, unitNames, withFile, withMaxPods } from '../../real-node/osc-edits.js';

export interface OscStep {
  readonly name: string;
  readonly next: (osc: OperatingSystemConfig) => OperatingSystemConfig;
}

const KUBELET_CONFIG = '/var/lib/kubelet/config/kubelet';
const SYSCTL_FILE = '/etc/sysctl.d/99-k8s-general.conf';
/**
 * A tunable of the node's own network namespace (the node has a private network): the node may
 * write it and the machine's value cannot change (as test/real-node/least-disruption.test.ts).
 */
export const SYSCTL_KEY = 'net.ipv4.ip_default_ttl';
export const UNREAD_FILE = '/etc/bench/read-by-nobody.conf';

function maxPodsOf(osc: OperatingSystemConfig): number {
  const inline = osc.spec.files?.find((f) => f.path === KUBELET_CONFIG)?.content.inline;
  const text =
    inline?.encoding === 'b64' ? Buffer.from(inline.data, 'base64').toString('utf8') : inline?.data;
  const m = /^maxPods: (\d+)$/m.exec(text ?? '');
  if (!m) throw new Error(`the OSC's ${KUBELET_CONFIG} has no maxPods line`);
  return Number(m[1]);
}

/** The unit a comment goes into: the log shipper where the pool has one (nothing depends on it). */
function commentedUnit(osc: OperatingSystemConfig): string {
  const names = unitNames(osc);
  const unit = ['valitail.service', 'kubelet.service'].find((u) => names.includes(u));
  if (!unit) throw new Error(`the OSC has neither valitail.service nor kubelet.service: ${names.join(', ')}`);
  return unit;
}

/** The steps for the pool's OSC `base` (names say the values, so the report is self-contained). */
export function oscSequence(base: OperatingSystemConfig): OscStep[] {
  const maxPods = maxPodsOf(base);
  const unit = commentedUnit(base);
  return [
    {
      name: `kubelet maxPods ${maxPods} → ${maxPods + 1}`,
      next: (osc) => withMaxPods(osc, maxPods + 1),
    },
    {
      name: `a comment in ${unit}`,
      next: (osc) => editUnit(osc, unit, (c) => `${c}\n# a comment systemd does not see\n`),
    },
    {
      name: `sysctl ${SYSCTL_KEY} = 77 in ${SYSCTL_FILE}`,
      next: (osc) => appendToFile(osc, SYSCTL_FILE, `${SYSCTL_KEY} = 77\n`),
    },
    {
      name: `a new file no unit lists (${UNREAD_FILE})`,
      next: (osc) => withFile(osc, UNREAD_FILE, 'read by nobody\n'),
    },
  ];
}
