/**
 * The content the rollout tests and the rollout benchmark roll out: a reconcile OSC whose kubelet
 * runs with a given maxPods, and the value with which it does not stay up (the injected fault).
 */
import type { OperatingSystemConfig } from '../../api/index.js';

export const KUBELET_CONFIG = '/var/lib/kubelet/config/kubelet';

/** A reconcile OSC that runs a kubelet with this maxPods: the content the tests roll out. */
export function kubeletOsc(maxPods: number): OperatingSystemConfig {
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'OperatingSystemConfig',
    metadata: { name: 'osc', namespace: 'shoot--it--rollout' },
    spec: {
      type: 'local',
      purpose: 'reconcile',
      files: [
        {
          path: KUBELET_CONFIG,
          permissions: 0o644,
          content: { inline: { encoding: '', data: `maxPods: ${maxPods}\n` } },
        },
      ],
      units: [
        {
          name: 'kubelet.service',
          enable: true,
          command: 'start',
          content: '[Service]\nExecStart=/opt/bin/kubelet\n',
          filePaths: [KUBELET_CONFIG],
        },
      ],
    },
  } as OperatingSystemConfig;
}

/** The bad value: a kubelet with it does not stay up (the injected fault). */
export const BAD_MAX_PODS = 999;
