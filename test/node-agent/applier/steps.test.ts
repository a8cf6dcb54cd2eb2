import { expect } from 'chai';
import type { OperatingSystemConfig, OscFile } from '../../../api/index.js';
import { planSteps, stepId } from '../../../node-agent/applier/steps.js';
import { computePlan } from '../../../node-agent/planner/compute-plan.js';

const file = (path: string): OscFile => ({
  path,
  permissions: 0o644,
  content: { inline: { encoding: '', data: 'x' } },
});
const osc = (files: OscFile[]): OperatingSystemConfig => ({
  apiVersion: 'extensions.gardener.cloud/v1alpha1',
  kind: 'OperatingSystemConfig',
  metadata: { name: 'osc' },
  spec: {
    type: 't',
    purpose: 'reconcile',
    units: [{ name: 'kubelet.service', content: '[Service]\n', filePaths: ['/opt/bin/kubelet-wrapper'] }],
    files,
  },
});

describe('node-agent applier: the order of an apply', () => {
  const dropIn = '/etc/systemd/system/containerd.service.d/11-exec_config.conf';
  const script = '/opt/bin/old-helper';
  const ids = planSteps(
    computePlan(
      osc([file(dropIn), file(script), file('/opt/bin/kubelet-wrapper')]),
      osc([{ ...file('/opt/bin/kubelet-wrapper'), content: { inline: { encoding: '', data: 'y' } } }]),
    ),
  ).map(stepId);

  it('a drop-in removed through spec.files is gone before systemd reloads, so the reload drops it', () => {
    expect(ids).to.include('daemon-reload');
    expect(ids.indexOf(`delete-file ${dropIn}`)).to.be.within(0, ids.indexOf('daemon-reload') - 1);
  });

  it('other removed files outlive the unit commands', () => {
    expect(ids.indexOf(`delete-file ${script}`)).to.be.greaterThan(ids.indexOf('restart kubelet.service'));
    expect(ids.indexOf('restart kubelet.service')).to.be.greaterThan(ids.indexOf('daemon-reload'));
  });
});
