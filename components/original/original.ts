/**
 * Everything a node runs (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/original.go): the original components in
 * gardenlet's order, their units and files concatenated in that order (the order is part of
 * `osc.yaml` and its checksum).
 */
import type { Component, ComponentContext, ComponentOutput } from '../component.js';
import { containerd } from '../containerd/containerd.js';
import { containerdInitializer } from '../containerd-initializer/containerd-initializer.js';
import { gardenerUser } from '../gardener-user/gardener-user.js';
import { journald } from '../journald/journald.js';
import { kernelConfig } from '../kernel-config/kernel-config.js';
import { kubelet } from '../kubelet/kubelet.js';
import { nodeAgent } from '../node-agent/node-agent.js';
import { rootCertificates } from '../root-certificates/root-certificates.js';
import { sshdEnsurer } from '../sshd-ensurer/sshd-ensurer.js';
import { valitail } from '../valitail/valitail.js';
import { varLibKubeletMount } from '../var-lib-kubelet-mount/var-lib-kubelet-mount.js';

export function originalComponents(ctx: ComponentContext): Component[] {
  return [
    valitail,
    varLibKubeletMount,
    rootCertificates,
    containerd,
    containerdInitializer,
    journald,
    kernelConfig,
    kubelet,
    sshdEnsurer,
    ...(ctx.sshAccessEnabled ? [gardenerUser] : []),
    ...(ctx.useGardenerNodeAgent ? [nodeAgent] : []),
  ];
}

export function concat(outputs: readonly ComponentOutput[]): ComponentOutput {
  return { units: outputs.flatMap((o) => o.units), files: outputs.flatMap((o) => o.files) };
}

export function original(ctx: ComponentContext): ComponentOutput {
  return concat(originalComponents(ctx).map((component) => component(ctx)));
}
