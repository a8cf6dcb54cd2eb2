import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { oracle150 } from '../support/oracle-150.js';
import { registryObjects } from '../support/rendered-documents.js';
import { useOracle150 } from '../support/use-oracle-150.js';
import { referencePoolCluster, renderV150 } from '../support/v150-render.js';

// biome-ignore lint/suspicious/noExplicitAny: plain JSON documents, read by path
type Json = any;

const KEY = 'gardener-node-agent-worker-a-1296c0b754ed56ec';

describe("gardener-oracle-150 oscSecret and roundTrip: gardenlet's stripped osc.yaml, read back by the node agent", () => {
  useOracle150();
  let seed: Json[] = [];
  let shootSecret: Json;
  before(async function () {
    this.timeout(60_000);
    seed = await renderV150(oracle150(), referencePoolCluster());
    const managed = seed.find(
      (o) =>
        o.kind === 'Secret' &&
        o.metadata.name.startsWith('managedresource-shoot-gardener-node-agent-worker-a-'),
    );
    shootSecret = registryObjects(managed).find((o) => o.kind === 'Secret');
  });

  it('builds the same shoot Secret from the reconcile OSC as the render, its checksum the sha256 of osc.yaml', async () => {
    const original = seed.find((o) => o.metadata.name === `${KEY}-original`);
    const { secret } = await oracle150().ask<{ secret: Json }>('oscSecret', {
      osc: original,
      secrets: [],
      secretName: KEY,
      pool: 'worker-a',
    });
    expect(secret.data['osc.yaml']).to.equal(shootSecret.data['osc.yaml']);
    const oscYaml = Buffer.from(secret.data['osc.yaml'], 'base64');
    expect(secret.metadata.annotations['checksum/data-script']).to.equal(
      createHash('sha256').update(oscYaml).digest('hex'),
    );
    expect(secret.metadata.labels).to.deep.equal({
      'gardener.cloud/role': 'operating-system-config',
      'worker.gardener.cloud/pool': 'worker-a',
    });
    // stripped: empty metadata, an empty purpose and type (Go's zero values written out)
    expect(oscYaml.toString('utf8')).to.match(
      /^apiVersion: extensions\.gardener\.cloud\/v1alpha1\nkind: OperatingSystemConfig\nmetadata: \{\}\n/,
    );
    expect(oscYaml.toString('utf8')).to.include('\n  purpose: ""\n  type: ""\n');
  });

  it("round-trips gardenlet's osc.yaml through the node agent's decoder to the same bytes", async () => {
    const [result] = await oracle150().ask<{ yaml?: string; error?: string }[]>('roundTrip', {
      documents: [shootSecret.data['osc.yaml']],
    });
    expect(result?.error).to.equal(undefined);
    expect(result?.yaml).to.equal(Buffer.from(shootSecret.data['osc.yaml'], 'base64').toString('utf8'));
  });
});
