/**
 * `gardener-osc rollout status`: where the rollout of every worker pool of a shoot stands (the
 * seed ConfigMap `gardener-node-agent-rollout` in the shoot namespace, docs/rollout.md), as a
 * table, YAML or JSON. From the seed (`--shoot`; the kubeconfig found as by every command,
 * runtime/kube/load-rest-config.ts), or from a file holding that ConfigMap (`kubectl get configmap
 * ... -o yaml`, for offline use; `-`: standard input).
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { type Command, Option } from 'commander';
import { parseYaml, ROLLOUT_STATUS_CONFIGMAP, stringifyYaml } from '../api/index.js';
import {
  decodeRolloutStatus,
  encodeRolloutStatus,
  type RolloutStatus,
  RolloutStatusError,
} from '../controllers/rollout/state.js';
import { formatRolloutStatus } from '../controllers/rollout/status-table.js';
import { UsageError } from '../runtime/cli/exit-codes.js';
import type { CliLogLevel } from '../runtime/cli/warnings.js';
import { KubeClient } from '../runtime/kube/kube-client.js';
import { KubeHttp } from '../runtime/kube/kube-http.js';
import { loadRestConfig, NoClusterConfigError } from '../runtime/kube/load-rest-config.js';
import { RESOURCE } from '../runtime/kube/resource.js';
import { addRolloutDriftCommand } from './drift-command.js';
import { readInput } from './render-input.js';

export interface RolloutStatusOptions {
  readonly shoot?: string;
  readonly kubeconfig?: string;
  readonly file?: string;
  readonly format: RolloutStatusFormat;
}

export const ROLLOUT_STATUS_FORMATS = ['table', 'yaml', 'json'] as const;
export type RolloutStatusFormat = (typeof ROLLOUT_STATUS_FORMATS)[number];

export interface RolloutIo {
  readonly stdout: { write(text: string): unknown };
  readonly readStdin?: () => string;
}

/** The status ConfigMap's data from a file: the ConfigMap itself, or a List holding it. */
function dataFromFile(path: string, readStdin?: () => string): Record<string, string> {
  const text = readInput(path, '--file', readStdin);
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new UsageError(`--file ${path}: ${(e as Error).message}`);
  }
  const o = doc as { kind?: string; items?: unknown[]; data?: unknown; metadata?: { name?: string } };
  const cm = (
    o?.kind === 'List'
      ? o.items?.find((i) => (i as V1ConfigMap)?.metadata?.name === ROLLOUT_STATUS_CONFIGMAP)
      : o
  ) as V1ConfigMap | undefined;
  if (!cm || typeof cm !== 'object' || (cm.kind !== undefined && cm.kind !== 'ConfigMap'))
    throw new UsageError(
      `--file ${path}: not the ConfigMap ${ROLLOUT_STATUS_CONFIGMAP} (kind: ${JSON.stringify(o?.kind)})`,
    );
  if (cm.data !== undefined && (typeof cm.data !== 'object' || cm.data === null))
    throw new UsageError(`--file ${path}: data: must be a map of strings`);
  return (cm.data ?? {}) as Record<string, string>;
}

async function dataFromSeed(
  shoot: string,
  kubeconfig: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Record<string, string>> {
  let client: KubeClient;
  try {
    client = new KubeClient(new KubeHttp(await loadRestConfig({ kubeconfig, env })));
  } catch (e) {
    if (e instanceof NoClusterConfigError)
      throw new UsageError('--shoot reads the seed: give --kubeconfig FILE or set $KUBECONFIG');
    throw new UsageError(`cannot load the seed kubeconfig: ${(e as Error).message}`);
  }
  try {
    const cm = await client.getIfExists<V1ConfigMap>(RESOURCE.configMap, {
      name: ROLLOUT_STATUS_CONFIGMAP,
      namespace: shoot,
    });
    if (!cm)
      throw new Error(
        `no rollout status in ${shoot}: ConfigMap ${ROLLOUT_STATUS_CONFIGMAP} not found (the gate is off, the shoot is not selected, or nothing was rolled out yet)`,
      );
    return cm.data ?? {};
  } finally {
    await client.http.close();
  }
}

export async function rolloutStatus(
  o: RolloutStatusOptions,
  env: NodeJS.ProcessEnv,
  now: number,
  readStdin?: () => string,
): Promise<string> {
  if ((o.file === undefined) === (o.shoot === undefined))
    throw new UsageError('give either --shoot NAMESPACE (read from the seed) or --file FILE');
  let data: Record<string, string>;
  if (o.file !== undefined) data = dataFromFile(o.file, readStdin);
  else data = await dataFromSeed(o.shoot!, o.kubeconfig, env);
  let status: RolloutStatus;
  try {
    status = decodeRolloutStatus(data);
  } catch (e) {
    if (e instanceof RolloutStatusError) throw new UsageError(`${ROLLOUT_STATUS_CONFIGMAP}: ${e.message}`);
    throw e;
  }
  if (o.format === 'table') return formatRolloutStatus(status, now);
  const pools = Object.fromEntries(
    Object.entries(encodeRolloutStatus(status)).map(([key, text]) => [
      key.replace(/\.yaml$/, ''),
      parseYaml(text),
    ]),
  );
  return o.format === 'json' ? `${JSON.stringify(pools, null, 2)}\n` : stringifyYaml(pools);
}

export function addRolloutCommand(program: Command, io: (level?: CliLogLevel) => RolloutIo): void {
  const rollout = program
    .command('rollout')
    .description('the rollout gate: waves, health gate, halt (docs/rollout.md)');
  rollout
    .command('status')
    .description(
      "print where the rollout of each worker pool of a shoot stands (the seed's gardener-node-agent-rollout)",
    )
    .option(
      '--shoot <namespace>',
      'the shoot namespace in the seed, e.g. shoot--dev--demo (read from the seed)',
    )
    .option(
      '--kubeconfig <file>',
      'the seed kubeconfig (default: $KUBECONFIG, else the in-cluster ServiceAccount, else ~/.kube/config)',
    )
    .option(
      '--file <file>',
      'read the ConfigMap from a file instead (kubectl get configmap -o yaml; "-": standard input)',
    )
    .addOption(
      new Option('-o, --format <format>', 'table, yaml or json')
        .choices(ROLLOUT_STATUS_FORMATS)
        .default('table'),
    )
    .action(async (o: RolloutStatusOptions & { logLevel?: CliLogLevel }) => {
      const { stdout, readStdin } = io(o.logLevel);
      stdout.write(await rolloutStatus(o, process.env, Date.now(), readStdin));
    });
  addRolloutDriftCommand(rollout, io);
}
