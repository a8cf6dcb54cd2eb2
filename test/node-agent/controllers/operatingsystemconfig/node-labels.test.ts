/** The Node's role and zone labels as gardener v1.150.0's OSC reconciler sets them. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../../../api/index.js';
import {
  nodeRole,
  roleAndZoneLabels,
} from '../../../../node-agent/controllers/operatingsystemconfig/node-labels.js';

const osc = (...paths: string[]) =>
  ({ spec: { files: paths.map((path) => ({ path, content: {} })) } }) as unknown as OperatingSystemConfig;

describe('node agent OSC reconciler: role and zone labels (v1.150.0)', () => {
  it('is a control-plane node when the OSC writes the kube-apiserver manifest', () => {
    expect(nodeRole(osc('/etc/kubernetes/manifests/kube-apiserver.yaml'))).to.equal('control-plane');
    expect(nodeRole(osc('/etc/kubernetes/manifests/etcd.yaml'))).to.equal('worker');
  });

  it('adds the role, and the zone from the zone file trimmed; nothing when the Node has them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gna-zone-'));
    try {
      const zoneFile = join(dir, 'zone');
      expect(await roleAndZoneLabels({ metadata: { name: 'n' } }, osc(), zoneFile)).to.deep.equal({
        'node-role.kubernetes.io/worker': '',
      });
      writeFileSync(zoneFile, ' europe-a\n');
      const labels = await roleAndZoneLabels({ metadata: { name: 'n' } }, osc(), zoneFile);
      expect(labels).to.deep.equal({
        'node-role.kubernetes.io/worker': '',
        'topology.kubernetes.io/zone': 'europe-a',
      });
      expect(await roleAndZoneLabels({ metadata: { name: 'n', labels } }, osc(), zoneFile)).to.equal(
        undefined,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
