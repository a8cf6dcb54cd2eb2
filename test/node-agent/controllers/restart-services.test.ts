import { expect } from 'chai';
import {
  requestedUnits,
  restartAnnotationChanged,
} from '../../../node-agent/controllers/node/restart-services.js';

const node = (value?: string) => ({
  metadata: {
    name: 'n',
    annotations:
      value === undefined ? undefined : { 'worker.gardener.cloud/restart-systemd-services': value },
  },
});

// Upstream: gardener v1.91.4 pkg/nodeagent/controller/node/reconciler.go.
describe('node controller: restart-systemd-services', () => {
  it('N-TV-06: which events matter', () => {
    expect(restartAnnotationChanged(undefined, node())).to.equal(false);
    expect(restartAnnotationChanged(undefined, node('foo'))).to.equal(true);
    expect(restartAnnotationChanged(node(), node())).to.equal(false);
    expect(restartAnnotationChanged(node(), node('foo'))).to.equal(true);
    expect(restartAnnotationChanged(node('foo'), node('bar'))).to.equal(true);
    expect(restartAnnotationChanged(node('foo'), node())).to.equal(false);
  });

  it('N-TV-07: units get .service, the agent is set aside for last', () => {
    expect(requestedUnits('gardener-node-agent,foo.service,bar')).to.deep.equal({
      units: ['foo.service', 'bar.service'],
      nodeAgent: true,
    });
    expect(requestedUnits('kubelet')).to.deep.equal({ units: ['kubelet.service'], nodeAgent: false });
    expect(requestedUnits('a,a.service')).to.deep.equal({ units: ['a.service'], nodeAgent: false });
  });
});
