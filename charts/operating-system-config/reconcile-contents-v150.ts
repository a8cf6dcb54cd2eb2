/**
 * The units and files of a pool's reconcile OSC in the Gardener v1.150.0 contract, in upstream's
 * order (gardener v1.150.0 pkg/component/extensions/operatingsystemconfig/original/original.go
 * `Components`): var-lib-kubelet mount, root certificates, containerd, journald, kernel config,
 * kubelet, sshd-ensurer, node agent, the log shipper (the OpenTelemetry Collector while
 * gardenlet's `OpenTelemetryCollector` gate is on, its default; valitail while it is off), and
 * gardener-user when SSH access is enabled.
 */
import type { ComponentOutput } from '../../components/component.js';
import { containerdV150 } from '../../components/containerd/containerd-v150.js';
import { gardenerUserV150 } from '../../components/gardener-user/gardener-user-v150.js';
import { journaldConfig } from '../../components/journald/journald.js';
import {
  type KernelConfigV150Input,
  kernelConfigV150,
} from '../../components/kernel-config/kernel-config-v150.js';
import { type KubeletV150Input, kubeletV150 } from '../../components/kubelet/kubelet-v150.js';
import { type NodeAgentV150Input, nodeAgentV150 } from '../../components/node-agent/node-agent-v150.js';
import {
  type OpenTelemetryCollectorInput,
  openTelemetryCollector,
} from '../../components/opentelemetry-collector/opentelemetry-collector.js';
import { concat } from '../../components/original/original.js';
import {
  type RootCertificatesV150Input,
  rootCertificatesV150,
} from '../../components/root-certificates/root-certificates-v150.js';
import { sshdEnsurerV150 } from '../../components/sshd-ensurer/sshd-ensurer-v150.js';
import { type ValitailV150Input, valitailV150 } from '../../components/valitail/valitail-v150.js';
import { varLibKubeletMountUnit } from '../../components/var-lib-kubelet-mount/var-lib-kubelet-mount.js';

/** The log shipper gardenlet's `OpenTelemetryCollector` gate chooses, with its inputs. */
export type LogShipperV150 =
  | { readonly kind: 'opentelemetry-collector'; readonly input: OpenTelemetryCollectorInput }
  | { readonly kind: 'valitail'; readonly input: ValitailV150Input };

export interface ReconcileContentsV150Input {
  readonly kubeletDataVolumeName: string | undefined;
  readonly rootCertificates: RootCertificatesV150Input;
  readonly kernelConfig: KernelConfigV150Input;
  readonly kubelet: KubeletV150Input;
  readonly ssh: { readonly sshAccessEnabled: boolean; readonly sshPublicKeys: readonly string[] };
  readonly nodeAgent: NodeAgentV150Input;
  readonly logShipper: LogShipperV150;
}

export function reconcileContentsV150(input: ReconcileContentsV150Input): ComponentOutput {
  return concat([
    varLibKubeletMountUnit(input.kubeletDataVolumeName),
    rootCertificatesV150(input.rootCertificates),
    containerdV150(),
    journaldConfig(),
    kernelConfigV150(input.kernelConfig),
    kubeletV150(input.kubelet),
    sshdEnsurerV150(input.ssh),
    nodeAgentV150(input.nodeAgent),
    input.logShipper.kind === 'valitail'
      ? valitailV150(input.logShipper.input)
      : openTelemetryCollector(input.logShipper.input),
    input.ssh.sshAccessEnabled ? gardenerUserV150(input.ssh) : { units: [], files: [] },
  ]);
}
