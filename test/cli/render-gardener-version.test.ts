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

  it('refuses 1.35 for v1.91.4 as before, and accepts it for v1.150.0 up to the render', () => {
    expect(() => fromMemory(example('1.35.1'))).to.throw(
      UsageError,
      'unsupported kubernetes version "1.35.1"',
    );
    // the minors pass; the render itself is what v1.150.0 does not do yet
    expect(() => fromMemory(example('1.35.1'), 'v1.150.0')).to.throw(
      UsageError,
      '--gardener-version: the Gardener v1.150.0 contract is not rendered yet',
    );
  });

  it('takes the Cluster annotation unless the flag says otherwise', () => {
    const annotated = example('1.34.1', 'v1.150.0');
    expect(() => fromMemory(annotated)).to.throw(UsageError, 'v1.150.0 contract is not rendered yet');
    expect(fromMemory(annotated, 'v1.91.4').gardenerVersion).to.equal('v1.91.4');
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

  it('plans with the contract of each Cluster, and refuses a switch it cannot render', () => {
    const source = (cluster: unknown) => ({ cluster, clusterName: 'cluster test', placeholderValues: true });
    const same = planSources({ current: source(example('1.34.1')), next: source(example('1.34.1')) });
    expect(same.view.pools.length).to.be.greaterThan(0);
    expect(() =>
      planSources({ current: source(example('1.34.1')), next: source(example('1.34.1', 'v1.150.0')) }),
    ).to.throw(UsageError, 'v1.150.0 contract is not rendered yet');
  });
});
