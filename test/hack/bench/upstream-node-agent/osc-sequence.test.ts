import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../../../api/index.js';
import {
  MIRRORED_REGISTRY,
  oscSequence,
  SYSCTL_KEY,
  UNREAD_FILE,
} from '../../../../hack/bench/upstream-node-agent/osc-sequence.js';

/** The parts of a pool's OSC the sequence edits; `criConfig.containerd` as a v1.150.0 pool has it. */
function pool(o: { logShipper: string; containerd: boolean }): OperatingSystemConfig {
  const inline = (data: string) => ({ content: { inline: { encoding: '', data } }, permissions: 0o644 });
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'pool', namespace: 'shoot--p--s' },
    spec: {
      type: 'debian',
      purpose: 'reconcile',
      units: [
        { name: 'kubelet.service', content: '[Service]\n' },
        { name: o.logShipper, content: '[Service]\n' },
      ],
      files: [
        { path: '/var/lib/kubelet/config/kubelet', ...inline('kind: KubeletConfiguration\nmaxPods: 110\n') },
        { path: '/etc/sysctl.d/99-k8s-general.conf', ...inline('vm.max_map_count = 135217728\n') },
      ],
      ...(o.containerd
        ? { criConfig: { name: 'containerd', containerd: { sandboxImage: 'pause:3.10' } } }
        : {}),
    },
  } as unknown as OperatingSystemConfig;
}

/** Every step applied in order, as the benchmark publishes them. */
function applied(base: OperatingSystemConfig): OperatingSystemConfig[] {
  const out: OperatingSystemConfig[] = [];
  let osc = base;
  for (const step of oscSequence(base)) {
    osc = step.next(osc);
    out.push(osc);
  }
  return out;
}

describe('the OSC sequence of the upstream-agent benchmark', () => {
  it("a v1.91.4 pool: maxPods, a comment in valitail's unit, a sysctl, an unread file", () => {
    const base = pool({ logShipper: 'valitail.service', containerd: false });
    expect(oscSequence(base).map((s) => s.name)).to.deep.equal([
      'kubelet maxPods 110 → 111',
      'a comment in valitail.service',
      `sysctl ${SYSCTL_KEY} = 77 in /etc/sysctl.d/99-k8s-general.conf`,
      `a new file no unit lists (${UNREAD_FILE})`,
    ]);
    expect(
      applied(base)
        .at(-1)
        ?.spec.files?.map((f) => f.path),
    ).to.include(UNREAD_FILE);
  });

  it('a v1.150.0 pool: the comment goes into the OpenTelemetry collector, then two containerd changes', () => {
    const base = pool({ logShipper: 'opentelemetry-collector.service', containerd: true });
    const names = oscSequence(base).map((s) => s.name);
    expect(names).to.have.length(6);
    expect(names[1]).to.equal('a comment in opentelemetry-collector.service');
    const [, , , , plugin, mirror] = applied(base);
    expect(plugin?.spec.criConfig?.containerd?.plugins).to.deep.equal([
      { op: 'add', path: ['io.containerd.grpc.v1.cri'], values: { enable_unprivileged_icmp: true } },
    ]);
    expect(plugin?.spec.criConfig?.containerd?.registries).to.equal(undefined);
    // the mirror step keeps the plugin option: the sequence accumulates
    expect(mirror?.spec.criConfig?.containerd?.plugins).to.have.length(1);
    expect(mirror?.spec.criConfig?.containerd?.registries?.map((r) => r.upstream)).to.deep.equal([
      MIRRORED_REGISTRY,
    ]);
    // the published base is never edited in place
    expect(base.spec.criConfig?.containerd).to.deep.equal({ sandboxImage: 'pause:3.10' });
  });
});
