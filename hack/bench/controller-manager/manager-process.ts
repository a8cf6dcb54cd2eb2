/**
 * The controller-manager under test as a process (an esbuild bundle of a revision's cli/main.ts),
 * its configuration, and the waits for its work: every Cluster reconciled (its ManagedResource
 * written) and every Node annotated with its delay.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringifyYaml } from '../../../api/index.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';
import { servingCertificate } from '../../landscape/csr-signer.js';
import { terminate } from '../support/process.js';
import { type Program, ROOT } from '../support/revision.js';
import { now, until } from '../support/run.js';
import type { Landscape } from './landscape.js';
import { MANAGER_NAMESPACE, RECONCILE_TIMEOUT_MS, SELECTOR } from './options.js';

export class ManagerProcess {
  readonly child: ChildProcess;
  readonly startedAt = now();
  metricsUrl: string | undefined;
  healthUrl: string | undefined;
  private log = '';

  constructor(program: Program, configFile: string, logFile: string) {
    this.child = spawn(
      process.execPath,
      [
        program.file,
        'controller-manager',
        '--config',
        configFile,
        '--health-port',
        '0',
        '--metrics-port',
        '0',
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.child.stderr!.on('data', (d: Buffer) => {
      writeFileSync(logFile, d, { flag: 'a' });
      if (this.metricsUrl) return;
      this.log += d.toString('utf8');
      const started = /"health":"(http:[^"]+)","metrics":"(http:[^"]+)"/.exec(this.log);
      if (started) {
        this.healthUrl = started[1];
        this.metricsUrl = started[2];
        this.log = '';
      }
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  async ready(): Promise<number> {
    await until('the controller-manager to be ready', RECONCILE_TIMEOUT_MS, async () => {
      if (this.child.exitCode !== null)
        throw new Error(`the controller-manager exited ${this.child.exitCode}`);
      if (!this.healthUrl) return undefined;
      const res = await fetch(`${this.healthUrl}/readyz`).catch(() => undefined);
      return res?.status === 200 ? true : undefined;
    });
    return now() - this.startedAt;
  }

  /** A metric without labels from the process's /metrics. */
  async metric(name: string): Promise<number> {
    if (!this.metricsUrl) return Number.NaN;
    const text = await (await fetch(`${this.metricsUrl}/metrics`)).text();
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  }

  /** `controller_runtime_reconcile_total` of one controller, summed over results. */
  async reconciles(controller: string): Promise<number> {
    if (!this.metricsUrl) return 0;
    const text = await (await fetch(`${this.metricsUrl}/metrics`)).text();
    let sum = 0;
    const pattern = new RegExp(
      `^controller_runtime_reconcile_total\\{[^}]*controller="${controller}"[^}]*\\} (\\S+)$`,
      'gm',
    );
    for (const m of text.matchAll(pattern)) sum += Number(m[1]);
    return sum;
  }

  stop(): Promise<number | null> {
    return terminate(this.child, 30_000);
  }
}

/**
 * The process's configuration: the default per-node identities, so with the node agent authorizer
 * (on any free port, its serving certificate and token key in the run's directory; no API server
 * asks it here, but its caches run for every shoot as on a landscape). A `--baseline` revision
 * reads the same file, so it must know these settings.
 */
export function managerConfig(dir: string, run: string, landscape: Landscape): string {
  const file = join(dir, `${run}-config.yaml`);
  const tls = servingCertificate(dir);
  writeFileSync(
    file,
    stringifyYaml({
      apiVersion: 'node-configuration.gardener.cloud/v1alpha1',
      kind: 'ControllerManagerConfiguration',
      seedKubeconfig: landscape.managerKubeconfig,
      clusterSelector: { matchLabels: SELECTOR },
      leaderElection: { namespace: MANAGER_NAMESPACE },
      controllers: { osLocal: { enabled: true, types: ['gardenlinux', 'ubuntu'] } },
      nodeAgent: {
        authorizer: {
          bindAddress: '127.0.0.1',
          port: 0,
          certFile: tls.certFile,
          keyFile: tls.keyFile,
          tokenKeyFile: tls.tokenKeyFile,
        },
      },
      logFormat: 'json',
    }),
  );
  return file;
}

/** A freshly installed CRD's storage answers 429 or 503 for a moment: such a poll counts as "not yet". */
export const unlessUnavailable = <T>(read: Promise<T>): Promise<T | undefined> =>
  read.catch((e: unknown) => {
    if ([429, 503].includes((e as { status?: number }).status ?? 0)) return undefined;
    throw e;
  });

export async function reconciledShoots(admin: KubeClient, namespaces: ReadonlySet<string>): Promise<number> {
  const list = await admin.list<{ metadata: { name: string; namespace: string } }>(RESOURCE.managedResource);
  return list.filter(
    (mr) => mr.metadata.name === 'shoot-gardener-node-agent' && namespaces.has(mr.metadata.namespace),
  ).length;
}

export async function nodesWithDelay(admin: KubeClient): Promise<number> {
  const list = await admin.list<{ metadata: { annotations?: Record<string, string> } }>(RESOURCE.node);
  return list.filter(
    (n) => n.metadata.annotations?.['node-agent.gardener.cloud/reconciliation-delay'] !== undefined,
  ).length;
}

/** Ms from the process start until every Cluster has its ManagedResource and every Node its delay. */
export async function untilReconciled(landscape: Landscape, manager: ManagerProcess, namespaces: string[]) {
  const wanted = new Set(namespaces);
  let shootsAt: number | undefined;
  await until(
    'every Cluster reconciled and every Node annotated',
    RECONCILE_TIMEOUT_MS,
    async () => {
      if (manager.child.exitCode !== null)
        throw new Error(`the controller-manager exited ${manager.child.exitCode}`);
      if (
        shootsAt === undefined &&
        (await unlessUnavailable(reconciledShoots(landscape.seedAdmin, wanted))) === wanted.size
      )
        shootsAt = now();
      if (shootsAt === undefined) return undefined;
      return (await nodesWithDelay(landscape.shootAdmin)) === landscape.nodes ? true : undefined;
    },
    500,
  );
  return { shootsMs: shootsAt! - manager.startedAt, allMs: now() - manager.startedAt };
}
