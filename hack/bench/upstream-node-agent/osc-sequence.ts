/**
 * The OSC changes both agents apply, one after another from the pool's published OSC, as gardenlet
 * would publish them: a kubelet configuration change, a comment-only unit change, a sysctl change
 * and a file no unit lists; on a v1.150.0 pool also a containerd configuration change and a
 * registry mirror (the v1.150.0 agent owns containerd's config.toml and certs.d). Each kind is one
 * where least disruption (docs/least-disruption.md) and upstream's agent may restart different
 * units.
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

/** The log shippers of v1.91.4 and v1.150.0 pools, and the unit every pool has. */
const COMMENTED_UNITS = ['valitail.service', 'opentelemetry-collector.service', 'kubelet.service'];

/** The unit a comment goes into: the log shipper where the pool has one (nothing depends on it). */
function commentedUnit(osc: OperatingSystemConfig): string {
  const names = unitNames(osc);
  const unit = COMMENTED_UNITS.find((u) => names.includes(u));
  if (!unit) throw new Error(`the OSC has none of ${COMMENTED_UNITS.join(', ')}: ${names.join(', ')}`);
  return unit;
}

/** The steps for the pool's OSC `base` (names say the values, so the report is self-contained). */
export function oscSequence(base: OperatingSystemConfig): OscStep[] {
  return [...commonSteps(base), ...(base.spec.criConfig?.containerd ? containerdSteps() : [])];
}

function commonSteps(base: OperatingSystemConfig): OscStep[] {
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

/** containerd's CRI plugin, whose table of config.toml the agent patches with `plugins` ops. */
const CRI = 'io.containerd.grpc.v1.cri';
export const MIRRORED_REGISTRY = 'registry.bench.test';

type Containerd = NonNullable<NonNullable<OperatingSystemConfig['spec']['criConfig']>['containerd']>;

function withContainerd(osc: OperatingSystemConfig, edit: (c: Containerd) => void): OperatingSystemConfig {
  const next = structuredClone(osc);
  const containerd = next.spec.criConfig?.containerd;
  if (!containerd) throw new Error('the OSC has no criConfig.containerd');
  edit(containerd);
  return next;
}

/**
 * A v1.150.0 pool's containerd changes: a CRI plugin option (config.toml changes, containerd
 * restarts) and a registry mirror (only `certs.d/<upstream>/hosts.toml`, which containerd reads per
 * pull). The option is a boolean: go-toml v1 writes a JSON number as a float, which containerd 1.6
 * does not take for its integer fields (docs/real-node.md#a-v1150-pool).
 */
function containerdSteps(): OscStep[] {
  return [
    {
      name: `containerd: ${CRI} enable_unprivileged_icmp = true`,
      next: (osc) =>
        withContainerd(osc, (c) => {
          c.plugins = [
            ...(c.plugins ?? []),
            { op: 'add', path: [CRI], values: { enable_unprivileged_icmp: true } },
          ];
        }),
    },
    {
      name: `containerd: a mirror of ${MIRRORED_REGISTRY}`,
      next: (osc) =>
        withContainerd(osc, (c) => {
          c.registries = [
            ...(c.registries ?? []),
            {
              upstream: MIRRORED_REGISTRY,
              server: `https://${MIRRORED_REGISTRY}`,
              hosts: [{ url: 'https://mirror.bench.test', capabilities: ['pull', 'resolve'] }],
            },
          ];
        }),
    },
  ];
}
