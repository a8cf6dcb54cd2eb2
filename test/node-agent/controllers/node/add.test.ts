import type { V1Node } from '@kubernetes/client-node';
import { expect } from 'chai';
import { MemorySystemd } from '../../../../hack/node-agent-doubles/memory-systemd.js';
import { addNodeController } from '../../../../node-agent/controllers/node/add.js';
import type { InformerHandlers } from '../../../../runtime/kube/informer.js';

const ANNOTATION = 'worker.gardener.cloud/restart-systemd-services';
const tick = () => new Promise<void>((r) => setImmediate(r));

/** The agent's Node informer, driven by the test; it never syncs (the controller must not wait). */
class NodeSource {
  readonly handlers = new Set<InformerHandlers<V1Node>>();
  current: V1Node | undefined;
  subscribe(h: InformerHandlers<V1Node>): () => void {
    this.handlers.add(h);
    return () => this.handlers.delete(h);
  }
  waitForSync(): Promise<void> {
    return new Promise(() => undefined);
  }
  list(): V1Node[] {
    return this.current ? [this.current] : [];
  }
  set(next: V1Node): void {
    const previous = this.current;
    this.current = next;
    for (const h of this.handlers) previous ? h.update?.(previous, next) : h.add?.(next);
  }
}

const node = (value?: string): V1Node => ({
  metadata: { name: 'n', annotations: value === undefined ? {} : { [ANNOTATION]: value } },
});

describe('node controller (add.ts)', () => {
  it('restarts the requested units when the annotation is set or changed, and removes it', async () => {
    const stop = new AbortController();
    const nodes = new NodeSource();
    const systemd = new MemorySystemd();
    const patches: unknown[] = [];
    const running = addNodeController(
      {
        nodes,
        systemd,
        client: {
          mergePatch: async (_r: unknown, _o: unknown, body: unknown) => {
            patches.push(body);
            return {};
          },
        } as never,
      },
      stop.signal,
    );
    nodes.set(node());
    nodes.set(node('kubelet'));
    for (let i = 0; i < 50 && patches.length < 1; i++) await tick();
    nodes.set(node('kubelet'));
    nodes.set(node('containerd,kubelet'));
    for (let i = 0; i < 50 && patches.length < 2; i++) await tick();
    expect(systemd.ops).to.deep.equal([
      { op: 'restart', unit: 'kubelet.service' },
      { op: 'restart', unit: 'containerd.service' },
      { op: 'restart', unit: 'kubelet.service' },
    ]);
    expect(patches).to.have.length(2);
    stop.abort();
    await running.stopped();
    expect(nodes.handlers.size).to.equal(0);
  });
});
