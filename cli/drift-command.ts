/**
 * `gardener-osc rollout drift`: which nodes of a shoot run something else than they were given,
 * per worker pool (cli/drift-status.ts). From the shoot (`--kubeconfig`, the shoot's kubeconfig,
 * found as by every command), or from a file of its Nodes (`kubectl get nodes -o yaml`; `-`:
 * standard input).
 */
import type { V1Node } from '@kubernetes/client-node';
import { type Command, Option } from 'commander';
import { parseYaml, stringifyYaml } from '../api/index.js';
import { UsageError } from '../runtime/cli/exit-codes.js';
import type { CliLogLevel } from '../runtime/cli/warnings.js';
import { KubeClient } from '../runtime/kube/kube-client.js';
import { KubeHttp } from '../runtime/kube/kube-http.js';
import { loadRestConfig } from '../runtime/kube/load-rest-config.js';
import { RESOURCE } from '../runtime/kube/resource.js';
import { driftByPool, formatDriftTable } from './drift-status.js';
import { readInput } from './render-input.js';

interface DriftOptions {
  readonly kubeconfig?: string;
  readonly file?: string;
  readonly format: 'table' | 'yaml' | 'json';
}

function nodesFromFile(path: string, readStdin?: () => string): V1Node[] {
  const doc = parseYaml(readInput(path, '--file', readStdin)) as { kind?: string; items?: V1Node[] };
  if (doc?.kind === 'Node') return [doc as V1Node];
  if (!Array.isArray(doc?.items)) throw new UsageError(`--file ${path}: not a Node or a List of Nodes`);
  return doc.items;
}

async function nodesFromShoot(kubeconfig: string | undefined, env: NodeJS.ProcessEnv): Promise<V1Node[]> {
  const client = new KubeClient(new KubeHttp(await loadRestConfig({ kubeconfig, env })));
  try {
    return await client.list<V1Node>(RESOURCE.node);
  } finally {
    await client.http.close();
  }
}

export async function rolloutDrift(
  o: DriftOptions,
  env: NodeJS.ProcessEnv,
  readStdin?: () => string,
): Promise<string> {
  const nodes =
    o.file !== undefined ? nodesFromFile(o.file, readStdin) : await nodesFromShoot(o.kubeconfig, env);
  const pools = driftByPool(nodes);
  if (o.format === 'table') return formatDriftTable(pools);
  return o.format === 'json' ? `${JSON.stringify(pools, null, 2)}\n` : stringifyYaml(pools);
}

export function addRolloutDriftCommand(
  rollout: Command,
  io: (level?: CliLogLevel) => { stdout: { write(text: string): unknown }; readStdin?: () => string },
): void {
  rollout
    .command('drift')
    .description("list a shoot's nodes that drifted from what their agent applied, per worker pool")
    .option('--kubeconfig <file>', "the shoot's kubeconfig (default: $KUBECONFIG, else ~/.kube/config)")
    .option(
      '--file <file>',
      'read the Nodes from a file instead (kubectl get nodes -o yaml; "-": standard input)',
    )
    .addOption(
      new Option('-o, --format <format>', 'table, yaml or json')
        .choices(['table', 'yaml', 'json'])
        .default('table'),
    )
    .action(async (o: DriftOptions & { logLevel?: CliLogLevel }) => {
      const { stdout, readStdin } = io(o.logLevel);
      stdout.write(await rolloutDrift(o, process.env, readStdin));
    });
}
