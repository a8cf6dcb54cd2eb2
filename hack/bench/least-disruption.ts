/**
 * Least disruption over a realistic change history of the example shoot: one pool's reconcile OSC
 * as rendered from examples/cluster.yaml, then six changes one after another (a kubelet parameter,
 * journald, a sysctl, a CA rotation, a second registry mirror of an OS extension that already
 * mirrors one (its hosts.toml listed by containerd.service), a comment in the kubelet unit). Each
 * step is planned twice in the same run, as the agent with `--disruption-policy none` (upstream's
 * behaviour) and with `--disruption-policy defaults` (its default), both named explicitly and read
 * as the agent reads the flag, and the plans' unit commands are counted: the applier runs exactly
 * those (test/node-agent/disruption/apply-least-disruption.test.ts).
 * Units a rule names that systemd may lack (systemd-journald, systemd-sysctl) count as restarted,
 * as on every node. Also: the changes each leaves without effect, and ms per plan (median).
 * `npx tsx hack/bench/least-disruption.ts > docs/benchmarks/least-disruption.out.txt` (a few
 * seconds; `--quick`: one timing round).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type OperatingSystemConfig, type OscFile, parseYaml } from '../../api/index.js';
import { poolOscs } from '../../cli/plan/pool-oscs.js';
import { DEFAULT_NOW, renderSource } from '../../cli/render-command.js';
import { disruptionPolicyFrom } from '../../node-agent/cli/disruption-policy-flag.js';
import { computePlan } from '../../node-agent/planner/compute-plan.js';
import { DEFAULTS_ONLY, NO_POLICY } from '../../node-agent/planner/disruption-policy.js';
import { computeLeastDisruptionPlan } from '../../node-agent/planner/least-disruption-plan.js';
import type { Plan } from '../../node-agent/planner/plan.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';

const { values: flags, quick } = benchCommandLine({
  script: 'hack/bench/least-disruption.ts',
  duration: 'A few seconds at the defaults; --quick (one timing round) about a second.',
  options: { rounds: { type: 'string', default: '50', quick: '1' } },
});
const ROUNDS = Number(flags.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds takes a positive integer');

const ROOT = join(import.meta.dirname, '../..');
const cluster = parseYaml(readFileSync(join(ROOT, 'examples/cluster.yaml'), 'utf8'));
const values = parseYaml(readFileSync(join(ROOT, 'examples/values.yaml'), 'utf8'));
const rendered = renderSource({ cluster, clusterName: 'example', values, target: 'shoot', now: DEFAULT_NOW });
const [poolName, pool] = [...poolOscs(rendered.objects)][0]!;

const hostsToml = (registry: string) =>
  `server = "https://${registry}"\n[host."https://mirror.example.com"]\n  capabilities = ["pull"]\n`;
const hostsPath = (registry: string) => `/etc/containerd/certs.d/${registry}/hosts.toml`;

/**
 * An OS extension that already mirrors one registry, as registry caches do: its hosts.toml in
 * `status.extensionFiles`, listed by the containerd unit it extends.
 */
function withRegistryMirror(osc: OperatingSystemConfig, registry: string): OperatingSystemConfig {
  const next = structuredClone(osc);
  const path = hostsPath(registry);
  const file: OscFile = { path, content: { inline: { encoding: '', data: hostsToml(registry) } } };
  const units = next.status?.extensionUnits ?? [];
  const containerd = units.find((u) => u.name === 'containerd.service');
  next.status = {
    ...next.status,
    extensionFiles: [...(next.status?.extensionFiles ?? []), file],
    extensionUnits: containerd
      ? units.map((u) => (u === containerd ? { ...u, filePaths: [...(u.filePaths ?? []), path] } : u))
      : [...units, { name: 'containerd.service', filePaths: [path] }],
  };
  return next;
}

const initial = withRegistryMirror(pool.osc, 'docker.io');

const text = (f: OscFile) =>
  Buffer.from(
    f.content.inline?.data ?? '',
    f.content.inline?.encoding === 'b64' ? 'base64' : 'utf8',
  ).toString();

function withFile(
  osc: OperatingSystemConfig,
  path: string,
  edit: (content: string) => string,
): OperatingSystemConfig {
  const next = structuredClone(osc);
  const file = next.spec.files?.find((f) => f.path === path);
  if (!file) throw new Error(`the example OSC has no ${path}`);
  file.content = { inline: { encoding: 'b64', data: Buffer.from(edit(text(file))).toString('base64') } };
  return next;
}

function withUnit(
  osc: OperatingSystemConfig,
  name: string,
  edit: (content: string) => string,
): OperatingSystemConfig {
  const next = structuredClone(osc);
  const unit = next.spec.units?.find((u) => u.name === name);
  if (unit?.content === undefined) throw new Error(`the example OSC has no unit file ${name}`);
  unit.content = edit(unit.content);
  return next;
}

/** The history: each step changes the OSC before it. */
const STEPS: readonly {
  readonly change: string;
  readonly apply: (osc: OperatingSystemConfig) => OperatingSystemConfig;
}[] = [
  {
    change: 'kubelet parameter (maxPods)',
    apply: (o) =>
      withFile(o, '/var/lib/kubelet/config/kubelet', (c) => c.replace(/^maxPods: \d+$/m, 'maxPods: 120')),
  },
  {
    change: 'journald (MaxRetentionSec)',
    apply: (o) =>
      withFile(o, '/etc/systemd/journald.conf', (c) =>
        c.replace('MaxRetentionSec=14day', 'MaxRetentionSec=7day'),
      ),
  },
  {
    change: 'sysctl (net.core.somaxconn)',
    apply: (o) =>
      withFile(o, '/etc/sysctl.d/99-k8s-general.conf', (c) =>
        c.replace(/somaxconn = \d+/, 'somaxconn = 65535'),
      ),
  },
  {
    change: 'CA rotation (both bundles)',
    apply: (o) =>
      withFile(
        withFile(o, '/var/lib/ca-certificates-local/ROOTcerts.crt', (c) => `${c}\n# rotated\n`),
        '/etc/pki/trust/anchors/ROOTcerts.pem',
        (c) => `${c}\n# rotated\n`,
      ),
  },
  {
    change: 'containerd registry mirror (a second hosts.toml)',
    apply: (o) => withRegistryMirror(o, 'registry.example.com'),
  },
  {
    change: 'a comment in the kubelet unit',
    apply: (o) => withUnit(o, 'kubelet.service', (c) => `# Managed by gardener-node-agent\n${c}`),
  },
];

interface Count {
  restarts: number;
  kubelet: number;
  reloads: number;
  units: string[];
}

function count(plan: Plan): Count {
  const restarts = plan.commands.filter((c) => c.command === 'restart');
  return {
    restarts: restarts.length,
    kubelet: restarts.filter((c) => c.unit === 'kubelet.service').length,
    reloads: plan.commands.filter((c) => c.command === 'reload').length,
    units: plan.commands
      .filter((c) => c.command !== 'stop')
      .map((c) => `${c.command === 'reload' ? 'reload ' : ''}${c.unit}`),
  };
}

/** The agent's plan with `--disruption-policy <flag>`, as `run` and `apply` compute it. */
function planWith(flag: string): (previous: OperatingSystemConfig, next: OperatingSystemConfig) => Plan {
  const policy = disruptionPolicyFrom(flag);
  return (previous, next) =>
    policy ? computeLeastDisruptionPlan(previous, next, { policy }) : computePlan(previous, next);
}
const planNone = planWith(NO_POLICY);
const planDefaults = planWith(DEFAULTS_ONLY);
if (planNone(initial, initial).disruption || !planDefaults(initial, initial).disruption)
  throw new Error('`none` must plan without a decision, `defaults` with one');

/** Units the decision acts on that the plan with `none` leaves alone: changes that would not take effect. */
function leftWithoutEffect(least: Plan): string[] {
  return (least.disruption ?? [])
    .filter((d) => d.baseline === 'None' && d.action !== 'None' && d.action !== 'DaemonReload')
    .map((d) => d.unit);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function timeMs(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

console.log(`# least-disruption benchmark, ${new Date().toISOString()}, node ${process.version}`);
if (quick) console.log(QUICK_NOTICE);
console.log(`pool ${poolName} of examples/cluster.yaml, ${STEPS.length} changes applied one after another`);
console.log('');
console.log(
  'change | none: restarts (kubelet) | defaults: restarts (kubelet), reloads | units with none | units with defaults | left without effect with none',
);
const totals = {
  before: { restarts: 0, kubelet: 0 },
  after: { restarts: 0, kubelet: 0, reloads: 0 },
  lost: 0,
};
let previous = initial;
const timings: { upstream: number[]; least: number[] } = { upstream: [], least: [] };
for (const step of STEPS) {
  const next = step.apply(previous);
  const upstream = planNone(previous, next);
  const least = planDefaults(previous, next);
  const a = count(upstream);
  const b = count(least);
  const lost = leftWithoutEffect(least);
  totals.before.restarts += a.restarts;
  totals.before.kubelet += a.kubelet;
  totals.after.restarts += b.restarts;
  totals.after.kubelet += b.kubelet;
  totals.after.reloads += b.reloads;
  totals.lost += lost.length;
  console.log(
    `${step.change} | ${a.restarts} (${a.kubelet}) | ${b.restarts} (${b.kubelet}), ${b.reloads} | ${a.units.join(' ') || '-'} | ${b.units.join(' ') || '-'} | ${lost.join(' ') || '-'}`,
  );
  for (let r = 0; r < ROUNDS; r++) {
    timings.upstream.push(timeMs(() => planNone(previous, next)));
    timings.least.push(timeMs(() => planDefaults(previous, next)));
  }
  previous = next;
}
console.log(
  `total | ${totals.before.restarts} (${totals.before.kubelet}) | ${totals.after.restarts} (${totals.after.kubelet}), ${totals.after.reloads} | | | ${totals.lost}`,
);
console.log('');
console.log(
  `ms per plan (median of ${ROUNDS * STEPS.length}): none ${median(timings.upstream).toFixed(2)}, defaults ${median(timings.least).toFixed(2)}`,
);
