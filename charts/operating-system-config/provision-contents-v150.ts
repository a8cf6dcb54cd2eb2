/**
 * The units and files of a pool's provision OSC in the Gardener v1.150.0 contract (gardener
 * v1.150.0 pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go, purpose
 * provision): node init, then gardener-user and sshd-ensurer when SSH access is enabled.
 */
import type { ComponentOutput } from '../../components/component.js';
import { gardenerUserV150 } from '../../components/gardener-user/gardener-user-v150.js';
import { concat } from '../../components/original/original.js';
import { sshdEnsurerV150 } from '../../components/sshd-ensurer/sshd-ensurer-v150.js';

export function provisionContentsV150(
  nodeInit: ComponentOutput,
  ssh: { readonly sshAccessEnabled: boolean; readonly sshPublicKeys: readonly string[] },
): ComponentOutput {
  return ssh.sshAccessEnabled ? concat([nodeInit, gardenerUserV150(ssh), sshdEnsurerV150(ssh)]) : nodeInit;
}
