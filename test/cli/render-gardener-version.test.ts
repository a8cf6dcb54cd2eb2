/** `gardener-osc render --gardener-version` and the Cluster annotation: the contract switch. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { GARDENER_VERSION_ANNOTATION, parseYaml, stringifyYaml } from '../../api/index.js';
import { planSources } from '../../cli/plan-command.js';
import { DEFAULT_NOW, render, renderSource } from '../../cli/render-command.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';

const EXAMPLE = join(import.meta.dirname, '../../examples/cluster.yaml');
const VALUES = join(import.meta.dirname, '../../examples/values.yaml');

interface ClusterDoc {
  metadata: { annotations?: Record<string, string> };
  spec: {
    shoot: {
      spec: {
        kubernetes: { version: string };
        provider: { workers: { kubernetes?: { version?: string } }[] };
      };
    };
  };
}

/** The example with every Kubernetes version set to `version` (and optionally annotated). */
function example(version: string, annotation?: string): ClusterDoc {
  const cluster = parseYaml(readFileSync(EXAMPLE, 'utf8')) as ClusterDoc;
  cluster.spec.shoot.spec.kubernetes.version = version;
  for (const w of cluster.spec.shoot.spec.provider.workers)
    if (w.kubernetes?.version) w.kubernetes.version = version;
  if (annotation !== undefined)
    cluster.metadata.annotations = {
      ...cluster.metadata.annotations,
      [GARDENER_VERSION_ANNOTATION]: annotation,
    };
  return cluster;
}

const fromMemory = (cluster: unknown, gardenerVersion?: string) =>
  renderSource({
    cluster,
    clusterName: 'cluster test',
    values: parseYaml(readFileSync(VALUES, 'utf8')),
    target: 'seed',
    now: DEFAULT_NOW,
    ...(gardenerVersion === undefined ? {} : { gardenerVersion }),
  });

const bytes = (objects: readonly Record<string, unknown>[]) =>
  objects.map((o) => stringifyYaml(o)).join('---\n');

describe('render --gardener-version', () => {
  it('renders v1.91.4 by default, and the same bytes when asked for it', () => {
    const byDefault = render({ target: 'seed', now: DEFAULT_NOW });
    const explicit = render({ target: 'seed', now: DEFAULT_NOW, gardenerVersion: 'v1.91.4' });
    expect(byDefault.gardenerVersion).to.equal('v1.91.4');
    expect(bytes(explicit.objects)).to.equal(bytes(byDefault.objects));
  });

  it('refuses Kubernetes minors outside 1.32–1.36 for v1.150.0, naming every field', () => {
    let error: unknown;
    try {
      render({ target: 'seed', now: DEFAULT_NOW, gardenerVersion: 'v1.150.0' });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).to.include('spec.shoot.spec.kubernetes.version');
    expect(message).to.include('spec.shoot.spec.provider.workers[1].kubernetes.version');
    expect(message).to.include(
      'supported minors of the Gardener v1.150.0 contract: 1.32, 1.33, 1.34, 1.35, 1.36',
    );
  });

  it('refuses 1.35 for v1.91.4 as before, and renders it for v1.150.0', () => {
    expect(() => fromMemory(example('1.35.1'))).to.throw(
      UsageError,
      'unsupported kubernetes version "1.35.1"',
    );
    const rendered = fromMemory(example('1.35.1'), 'v1.150.0');
    expect(rendered.gardenerVersion).to.equal('v1.150.0');
    const oscs = rendered.objects.filter((o) => o.kind === 'OperatingSystemConfig');
    // v1.150.0 names: no image name, a 16-hex key
    expect(oscs.map((o) => (o.metadata as { name: string }).name)).to.have.length(6);
    for (const o of oscs)
      expect((o.metadata as { name: string }).name).to.match(
        /^gardener-node-agent-[a-z-]+-[0-9a-f]{16}-(init|original)$/,
      );
  });

  it('takes the Cluster annotation unless the flag says otherwise', () => {
    const annotated = example('1.34.1', 'v1.150.0');
    expect(fromMemory(annotated).gardenerVersion).to.equal('v1.150.0');
    expect(fromMemory(annotated, 'v1.91.4').gardenerVersion).to.equal('v1.91.4');
    expect(bytes(fromMemory(annotated).objects)).to.equal(
      bytes(fromMemory(example('1.34.1'), 'v1.150.0').objects),
    );
  });

  it('refuses in v1.150.0 mode what that contract does not have, naming it', () => {
    const cluster = example('1.34.1');
    const withSource = (extra: Record<string, unknown>) => () =>
      renderSource({
        cluster,
        clusterName: 'cluster test',
        values: parseYaml(readFileSync(VALUES, 'utf8')),
        target: 'seed',
        now: DEFAULT_NOW,
        gardenerVersion: 'v1.150.0',
        ...extra,
      });
    expect(withSource({ legacyNodes: true })).to.throw(
      UsageError,
      'legacy nodes (cloud-config-downloader) is not part of the Gardener v1.150.0 contract',
    );
    expect(withSource({ featureGates: 'UseGardenerNodeAgent=false' })).to.throw(
      UsageError,
      'feature gate UseGardenerNodeAgent=false is not part',
    );
    expect(withSource({ nodeAgentIdentity: 'serviceAccount' })).to.throw(
      UsageError,
      'nodeAgentIdentity serviceAccount',
    );
  });

  it('names a wrong flag and a wrong annotation', () => {
    expect(() => fromMemory(example('1.34.1'), 'v1.150')).to.throw(
      UsageError,
      '--gardener-version must be one of v1.91.4, v1.150.0, not "v1.150"',
    );
    expect(() => fromMemory(example('1.34.1', 'latest'))).to.throw(
      UsageError,
      `metadata.annotations[${GARDENER_VERSION_ANNOTATION}]: Unsupported value: "latest": unknown Gardener version "latest"`,
    );
  });

  it('plans the switch from v1.91.4 to v1.150.0: every pool rolls to a renamed OSC secret', () => {
    const source = (cluster: unknown) => ({ cluster, clusterName: 'cluster test', placeholderValues: true });
    const same = planSources({ current: source(example('1.34.1')), next: source(example('1.34.1')) });
    expect(same.view.pools.map((p) => p.changed)).to.deep.equal([false, false, false]);
    const { view } = planSources({
      current: source(example('1.34.1')),
      next: source(example('1.34.1', 'v1.150.0')),
    });
    expect(view.pools.map((p) => p.name)).to.deep.equal(['cpu-worker', 'gpu-worker', 'arm-worker']);
    for (const pool of view.pools) {
      expect(pool.changed, pool.name).to.equal(true);
      expect(pool.secret?.from, pool.name).to.match(
        new RegExp(`^gardener-node-agent-${pool.name}-[0-9a-f]{5}$`),
      );
      expect(pool.secret?.to, pool.name).to.match(
        new RegExp(`^gardener-node-agent-${pool.name}-[0-9a-f]{16}$`),
      );
      // the agent's own configuration moves to its v1.150 file, and the kubelet gets systemd's cgroups
      expect(pool.summary, pool.name).to.include(
        '/var/lib/gardener-node-agent/config-v1.150.0.yaml (new file)',
      );
      expect(pool.summary, pool.name).to.include('cgroupDriver cgroupfs → systemd');
    }
  });
});
