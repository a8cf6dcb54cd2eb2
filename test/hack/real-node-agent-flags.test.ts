import { expect } from 'chai';
import { agentExecStart, agentFlagsDropIn } from '../../hack/real-node/agent-flags.js';

describe('hack/real-node: flags for the node agent of a real node', () => {
  const unit =
    '[Unit]\nDescription=Gardener Node Agent\n[Service]\nExecStart=/opt/bin/gardener-node-agent --config=/var/lib/gardener-node-agent/config.yaml\nRestart=always\n';

  it('replaces the rendered ExecStart with the rendered command line and the flags', () => {
    expect(
      agentFlagsDropIn(unit, ['--disruption-policy', 'defaults', '--drift-check-interval', '2s']),
    ).to.equal(
      '[Service]\nExecStart=\nExecStart=/opt/bin/gardener-node-agent --config=/var/lib/gardener-node-agent/config.yaml --disruption-policy defaults --drift-check-interval 2s\n',
    );
  });

  it('refuses a unit without exactly one ExecStart and a flag a shell or systemd would reinterpret', () => {
    expect(() => agentExecStart('[Service]\nRestart=always\n')).to.throw('0 ExecStart= lines');
    expect(() => agentFlagsDropIn(unit, ['--x', 'a b'])).to.throw('not a plain flag');
    expect(() => agentFlagsDropIn(unit, ['--x=$HOME'])).to.throw('not a plain flag');
  });
});
