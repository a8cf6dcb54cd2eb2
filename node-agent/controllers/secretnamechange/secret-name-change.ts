/**
 * The secret-name change (gardener v1.150.0 pkg/nodeagent/controller/secretnamechange): gardenlet
 * labels each Node with the name of its pool's OSC secret
 * (`worker.gardener.cloud/gardener-node-agent-secret-name`); when the label is set or changes and
 * differs from `controllers.operatingSystemConfig.secretName` of the configuration file the agent
 * runs with, the file is rewritten with the new name (0600) and the agent restarts itself, so it
 * follows the renamed secret. Unlike upstream a removed or empty label changes nothing: an agent
 * without a secret name cannot apply anything (docs/compatibility.md V150-30).
 */
import { readFile } from 'node:fs/promises';
import type { V1Node } from '@kubernetes/client-node';
import { LABEL, parseYaml, stringifyYaml } from '../../../api/index.js';
import { writeFileAtomic } from '../../fs/atomic-write.js';

export const CONFIG_FILE_MODE = 0o600;

const desiredName = (node: V1Node | undefined) => node?.metadata?.labels?.[LABEL.nodeAgentSecretName] ?? '';

/** The watch's filter: the label set on a new Node, or changed (upstream's `NodePredicate`). */
export function secretNameLabelChanged(old: V1Node | undefined, node: V1Node): boolean {
  return old === undefined ? desiredName(node) !== '' : desiredName(old) !== desiredName(node);
}

/** The configuration text with the new secret name, or undefined when nothing is to change. */
export function withSecretName(configText: string, secretName: string): string | undefined {
  if (secretName === '') return undefined;
  // biome-ignore lint/suspicious/noExplicitAny: a plain YAML document, edited by path
  const config = parseYaml(configText) as any;
  const osc = config?.controllers?.operatingSystemConfig;
  if (osc?.secretName === secretName) return undefined;
  config.controllers = { ...config.controllers, operatingSystemConfig: { ...osc, secretName } };
  return stringifyYaml(config);
}

/**
 * Rewrites the configuration file for the Node's label; true when it did, and the agent must
 * restart to follow the new secret.
 */
export async function followSecretName(configFile: string, node: V1Node | undefined): Promise<boolean> {
  const next = withSecretName(await readFile(configFile, 'utf8'), desiredName(node));
  if (next === undefined) return false;
  await writeFileAtomic(configFile, next, CONFIG_FILE_MODE);
  return true;
}
