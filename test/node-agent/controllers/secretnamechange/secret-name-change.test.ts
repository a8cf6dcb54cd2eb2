/**
 * The secret-name change (gardener v1.150.0 pkg/nodeagent/controller/secretnamechange): the Node's
 * secret-name label rewrites the configuration file (0600) and restarts the agent.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Node } from '@kubernetes/client-node';
import { expect } from 'chai';
import { parseYaml } from '../../../../api/index.js';
import { addSecretNameChangeController } from '../../../../node-agent/controllers/secretnamechange/add.js';
import {
  secretNameLabelChanged,
  withSecretName,
} from '../../../../node-agent/controllers/secretnamechange/secret-name-change.js';
import type { InformerHandlers } from '../../../../runtime/kube/informer.js';

const LABEL = 'worker.gardener.cloud/gardener-node-agent-secret-name';
const tick = () => new Promise<void>((r) => setTimeout(r, 10));
const node = (name?: string): V1Node => ({
  metadata: { name: 'n', labels: name === undefined ? {} : { [LABEL]: name } },
});

const CONFIG = `apiVersion: nodeagent.config.gardener.cloud/v1alpha1
kind: NodeAgentConfiguration
apiServer:
  server: https://api
controllers:
  operatingSystemConfig:
    secretName: gardener-node-agent-worker-a-0123456789abcdef
    kubernetesVersion: 1.34.1
  token:
    syncConfigs: []
`;

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

describe('node agent secret-name change', () => {
  it("reacts to the label set on a new Node or changed, as upstream's predicate", () => {
    expect(secretNameLabelChanged(undefined, node())).to.equal(false);
    expect(secretNameLabelChanged(undefined, node('a'))).to.equal(true);
    expect(secretNameLabelChanged(node('a'), node('a'))).to.equal(false);
    expect(secretNameLabelChanged(node('a'), node('b'))).to.equal(true);
    expect(secretNameLabelChanged(node('a'), node())).to.equal(true);
  });

  it('sets the new name and keeps the rest; the same or no name changes nothing', () => {
    const next = withSecretName(CONFIG, 'gardener-node-agent-worker-a-fedcba9876543210');
    expect(parseYaml(next!)).to.deep.equal({
      ...(parseYaml(CONFIG) as object),
      controllers: {
        operatingSystemConfig: {
          secretName: 'gardener-node-agent-worker-a-fedcba9876543210',
          kubernetesVersion: '1.34.1',
        },
        token: { syncConfigs: [] },
      },
    });
    expect(withSecretName(CONFIG, 'gardener-node-agent-worker-a-0123456789abcdef')).to.equal(undefined);
    expect(withSecretName(CONFIG, '')).to.equal(undefined);
  });

  it('rewrites the configuration file (0600) and restarts the agent once per change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gna-config-'));
    const configFile = join(dir, 'config-v1.150.0.yaml');
    writeFileSync(configFile, CONFIG, { mode: 0o644 });
    const stop = new AbortController();
    const nodes = new NodeSource();
    let restarts = 0;
    const running = addSecretNameChangeController(
      { nodes, configFile, restartSelf: () => restarts++ },
      stop.signal,
    );
    try {
      nodes.set(node('gardener-node-agent-worker-a-0123456789abcdef'));
      for (let i = 0; i < 20; i++) await tick();
      expect(restarts, 'the name it runs with').to.equal(0);
      expect(readFileSync(configFile, 'utf8')).to.equal(CONFIG);

      nodes.set(node('gardener-node-agent-worker-a-fedcba9876543210'));
      for (let i = 0; i < 200 && restarts < 1; i++) await tick();
      expect(restarts).to.equal(1);
      const written = parseYaml(readFileSync(configFile, 'utf8')) as {
        controllers: { operatingSystemConfig: { secretName: string } };
      };
      expect(written.controllers.operatingSystemConfig.secretName).to.equal(
        'gardener-node-agent-worker-a-fedcba9876543210',
      );
      expect(statSync(configFile).mode & 0o777).to.equal(0o600);
    } finally {
      stop.abort();
      await running.stopped();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
