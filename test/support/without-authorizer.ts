/**
 * The controller-manager configuration of a file without the node agent authorizer's endpoint:
 * what `manifests --controller-registration` accepts (its Helm chart does not serve the authorizer).
 */
import { loadControllerManagerConfiguration } from '../../cli/controller-manager-command.js';
import type { ControllerManagerConfiguration } from '../../seed/manager/config.js';

export function withoutAuthorizer(path: string): ControllerManagerConfiguration {
  const config = loadControllerManagerConfiguration(path);
  return { ...config, nodeAgent: { ...config.nodeAgent, authorizer: undefined } };
}
