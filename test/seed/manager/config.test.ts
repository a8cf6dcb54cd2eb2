/** The controller-manager configuration: defaults, opt-in selection, errors that name the field. */
import { expect } from 'chai';
import { stringifyYaml } from '../../../api/index.js';
import {
  clusterSelected,
  DURATION_FIELDS,
  encodeControllerManagerConfiguration,
  parseControllerManagerConfiguration,
} from '../../../seed/manager/config.js';

const header =
  'apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: ControllerManagerConfiguration\n';

describe('ControllerManagerConfiguration', () => {
  it('defaults everything but the selector', () => {
    const result = parseControllerManagerConfiguration(
      `${header}clusterSelector:\n  matchLabels:\n    a: b\n`,
    );
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const c = result.value;
    expect(c.applyMode).to.equal('managedResource');
    expect(c.gardenerVersion).to.equal('v1.91.4');
    expect(c.featureGates.UseGardenerNodeAgent).to.equal(true);
    expect(c.controllers.operatingSystemConfig.enabled).to.equal(true);
    expect(c.featureGates.OpenTelemetryCollector).to.equal(true);
    expect(c.controllers.operatingSystemConfig.waitTimeout).to.equal(180_000);
    expect(c.controllers.operatingSystemConfig.syncPeriod).to.equal(3_600_000);
    expect(c.controllers.nodeDelay).to.deep.equal({ enabled: true, minDelay: 0, inV150Mode: false });
    expect(c.controllers.nodeAgentCsrApprover).to.deep.equal({ inV150Mode: false });
    expect(c.controllers.nodeAgentAuthorizer).to.deep.equal({ inV150Mode: false });
    expect(c.controllers.osLocal).to.deep.equal({ enabled: false, types: ['local'] });
    expect(c.leaderElection).to.include({ enabled: true, leaseDuration: 15_000, renewDeadline: 10_000 });
    expect(c.server.healthProbes.port).to.equal(8081);
    expect(c.server.metrics.port).to.equal(8080);
  });

  it('turns on a controller left to gardener-resource-manager in v1.150.0, naming a wrong value', () => {
    const selector = 'clusterSelector:\n  matchLabels:\n    a: b\n';
    const on = parseControllerManagerConfiguration(
      `${header}${selector}controllers:\n  nodeDelay: {inV150Mode: true}\n  nodeAgentAuthorizer: {inV150Mode: true}\n`,
    );
    if (!on.ok) throw new Error(JSON.stringify(on.errors));
    expect(on.value.controllers.nodeDelay.inV150Mode).to.equal(true);
    expect(on.value.controllers.nodeAgentAuthorizer.inV150Mode).to.equal(true);
    expect(on.value.controllers.nodeAgentCsrApprover.inV150Mode).to.equal(false);
    const wrong = parseControllerManagerConfiguration(
      `${header}${selector}controllers:\n  nodeAgentCsrApprover: {inV150Mode: "yes", enabled: true}\n`,
    );
    expect(wrong.ok).to.equal(false);
    if (!wrong.ok)
      expect(wrong.errors.map((e) => e.field).sort()).to.deep.equal([
        'controllers.nodeAgentCsrApprover.enabled',
        'controllers.nodeAgentCsrApprover.inV150Mode',
      ]);
  });

  it('takes the contract for every Cluster and names a wrong one', () => {
    const selector = 'clusterSelector:\n  matchLabels:\n    a: b\n';
    const v150 = parseControllerManagerConfiguration(`${header}${selector}gardenerVersion: v1.150.0\n`);
    if (!v150.ok) throw new Error(JSON.stringify(v150.errors));
    expect(v150.value.gardenerVersion).to.equal('v1.150.0');
    const wrong = parseControllerManagerConfiguration(`${header}${selector}gardenerVersion: v1.150\n`);
    expect(wrong.ok).to.equal(false);
    if (!wrong.ok) expect(wrong.errors.map((e) => e.field)).to.deep.equal(['gardenerVersion']);
  });

  it('requires an opt-in selector with at least one label', () => {
    const missing = parseControllerManagerConfiguration(header);
    const empty = parseControllerManagerConfiguration(`${header}clusterSelector:\n  matchLabels: {}\n`);
    expect(missing.ok).to.equal(false);
    expect(empty.ok).to.equal(false);
    if (!empty.ok) expect(empty.errors[0]?.field).to.equal('clusterSelector.matchLabels');
  });

  it('names the field of a bad duration, an unknown field and a bad apply mode', () => {
    const result = parseControllerManagerConfiguration(
      `${header}clusterSelector:\n  matchLabels:\n    a: b\napplyMode: sideways\nbogus: 1\ncontrollers:\n  nodeDelay:\n    minDelay: 5 minutes\n`,
    );
    if (result.ok) throw new Error('accepted');
    const fields = result.errors.map((e) => e.field);
    expect(fields).to.include.members(['applyMode', 'controllers.nodeDelay.minDelay']);
    expect(result.errors.some((e) => e.detail.includes('bogus') || e.field.includes('bogus'))).to.equal(true);
  });

  it('caps node agent certificates at 720h by default and names the field of a lifetime beyond a year', () => {
    const ok = parseControllerManagerConfiguration(`${header}clusterSelector:\n  matchLabels:\n    a: b\n`);
    if (!ok.ok) throw new Error(JSON.stringify(ok.errors));
    expect(ok.value.nodeAgent.maxCertificateLifetime).to.equal(720 * 3_600_000);
    const tooLong = parseControllerManagerConfiguration(
      `${header}clusterSelector:\n  matchLabels:\n    a: b\nnodeAgent:\n  maxCertificateLifetime: 87600h\n`,
    );
    if (tooLong.ok) throw new Error('accepted 10 years');
    expect(tooLong.errors.map((e) => e.field)).to.deep.equal(['nodeAgent.maxCertificateLifetime']);
  });

  it('selects only Clusters carrying every selector label', () => {
    const config = { clusterSelector: { matchLabels: { a: 'b', c: 'd' } } };
    expect(clusterSelected(config, { a: 'b', c: 'd', e: 'f' })).to.equal(true);
    expect(clusterSelected(config, { a: 'b' })).to.equal(false);
    expect(clusterSelected(config, undefined)).to.equal(false);
  });

  it('encodes as Go writes durations (1h0m0s, 1.5s), with every default, and reads back the same value', () => {
    const result = parseControllerManagerConfiguration(
      `${header}clusterSelector:\n  matchLabels:\n    a: b\ncontrollers:\n  nodeDelay:\n    minDelay: 1500ms\n`,
    );
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const encoded = encodeControllerManagerConfiguration(result.value) as {
      controllers: { nodeDelay: { minDelay: string }; operatingSystemConfig: { syncPeriod: string } };
      leaderElection: Record<string, unknown>;
    };
    expect(encoded.controllers.nodeDelay.minDelay).to.equal('1.5s');
    expect(encoded.controllers.operatingSystemConfig.syncPeriod).to.equal('1h0m0s');
    expect(encoded.leaderElection).to.include({
      leaseDuration: '15s',
      renewDeadline: '10s',
      retryPeriod: '2s',
    });
    const again = parseControllerManagerConfiguration(stringifyYaml(encoded));
    expect(again).to.deep.equal(result);
    // every duration the schema reads is one the encoder writes back (a missed one reads back as a number)
    const durations = DURATION_FIELDS.map((path) =>
      path.reduce((o: unknown, k) => (o as Record<string, unknown>)[k], encoded as unknown),
    );
    expect(durations.every((d) => typeof d === 'string')).to.equal(true);
  });
});
