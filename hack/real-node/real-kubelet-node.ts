/**
 * A real node of the example shoot's `cpu-worker` pool with the real kubelet and containerd
 * (docs/real-node.md#a-real-kubelet), booted once per suite: the shoot API server, the kubelet CSR
 * signer, the pool's OSC rendered for the given Gardener contract with the cgroup override this
 * machine needs published, the node provisioned from its user data; and what the suites read of it
 * (the Node, the agent's verdict, a unit's journal). The suite reaps stale nodes and takes its
 * host snapshot first.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { ANNOTATION, type OperatingSystemConfig, readApplyReport, sha256Hex } from '../../api/index.js';
import { buildNodeAgent } from '../build-node-agent.js';
import { type Envtest, startEnvtest } from '../landscape/envtest.js';
import { eventually } from '../landscape/eventually.js';
import { realKubeletBinary, realKubeletNodeImage, realKubeletVersion } from '../real-kubelet/cache.js';
import { type KubeletOverride, kubeletOverride } from '../real-kubelet/cgroup-controllers.js';
import { grantConfigzAccess } from '../real-kubelet/configz-access.js';
import { type KubeletCsrSigner, startKubeletCsrSigner } from '../real-kubelet/kubelet-csr-signer.js';
import type { Container } from './container.js';
import { type NodeUnderTest, provisionNode } from './node-under-test.js';
import { decodeOsc } from './osc-edits.js';
import { oscSysctlKeys, pauseImagesOf } from './real-kubelet-osc.js';
import { withKubeletFields } from './real-kubelet-probes.js';
import { type ShootForNodes, setUpShoot } from './shoot.js';

/** The image files of a pool whose stand-ins hack/real-node does not name by path. */
const STAND_INS: Readonly<Record<string, string>> = {
  // v1.150's log shipper runs until stopped, as the valitail stand-in does
  '/bin/otelcol': join(import.meta.dirname, '../../hack/real-node/stubs/valitail'),
};

export interface RealKubeletNode {
  readonly name: string;
  readonly envtest: Envtest;
  readonly shoot: ShootForNodes;
  readonly signer: KubeletCsrSigner;
  readonly core: CoreV1Api;
  readonly node: NodeUnderTest;
  readonly container: Container;
  /** The OSC as published first (the cgroup override applied). */
  readonly osc: OperatingSystemConfig;
  readonly override: KubeletOverride;
  /** The kubelet's version, e.g. `1.34.4`. */
  readonly version: string;
  readonly firstChecksum: string;
  readNode(): Promise<V1Node | undefined>;
  nodeChecksum(): Promise<string | undefined>;
  journalOf(unit: string, lines?: number): Promise<string>;
  /** Waits until the agent's report on the Node for `checksum` is final (Succeeded or Failed). */
  verdict(checksum: string, timeoutMs?: number): Promise<NonNullable<ReturnType<typeof readApplyReport>>>;
  /** Stops the node only (the host check needs the rest gone first). */
  stopNode(): Promise<void>;
  stop(): Promise<void>;
}

export const readyCondition = (n: V1Node | undefined) =>
  n?.status?.conditions?.find((x) => x.type === 'Ready');

/** The machine's own value of a tunable (`0` where it has none). */
export function hostSysctl(key: string): string {
  try {
    return readFileSync(`/proc/sys/${key.includes('/') ? key : key.replaceAll('.', '/')}`, 'utf8')
      .trim()
      .replaceAll(/\s+/g, ' ');
  } catch {
    return '0';
  }
}

export async function startRealKubeletNode(o: {
  name: string;
  /** The Gardener contract of the pool (default: the example's, v1.91.4). */
  gardenerVersion?: string;
  /** The pool's Kubernetes version (default: the kubelet's own), e.g. 1.29.8 for an agent of v1.91. */
  kubernetesVersion?: string;
  /** Told what the cgroup override is, before the node boots. */
  log?: (line: string) => void;
  /**
   * `/opt/bin` on the host's disk, as on a cloud machine (default), or false: in the node's overlay
   * root (node-under-test.ts, provisionNode, says what that costs a Node.js process).
   */
  optBinOnDisk?: boolean;
}): Promise<RealKubeletNode> {
  const { name } = o;
  const image = realKubeletNodeImage();
  const kubelet = realKubeletBinary();
  const version = realKubeletVersion();
  const override = kubeletOverride();
  o.log?.(`real kubelet: ${override.note}`);
  const buildDir = mkdtempSync(join(tmpdir(), 'real-kubelet-agent-'));
  let envtest: Envtest | undefined;
  let shoot: ShootForNodes | undefined;
  let signer: KubeletCsrSigner | undefined;
  let node: NodeUnderTest | undefined;
  const stop = async () => {
    await node?.stop();
    node = undefined;
    await signer?.stop();
    await shoot?.cleanup();
    rmSync(buildDir, { recursive: true, force: true });
  };
  try {
    const [started, build] = await Promise.all([
      startEnvtest({ name: 'real-kubelet' }),
      buildNodeAgent({ outDir: buildDir }),
    ]);
    envtest = started;
    const core = envtest.kubeConfig.makeApiClient(CoreV1Api);
    signer = startKubeletCsrSigner(envtest);
    await grantConfigzAccess(envtest);
    shoot = await setUpShoot(envtest, {
      kubernetesVersion: o.kubernetesVersion ?? version,
      kubeletCaPem: readFileSync(envtest.clientCa!.certFile, 'utf8'),
      ...(o.gardenerVersion ? { gardenerVersion: o.gardenerVersion } : {}),
    });
    const osc = withKubeletFields(decodeOsc(shoot.oscYaml), override.fields);
    const firstChecksum =
      Object.keys(override.fields).length > 0 ? await shoot.publishOsc(osc) : sha256Hex(shoot.oscYaml);
    node = await provisionNode({
      name,
      shoot,
      envtest,
      agentBinary: build.binary,
      cache: image,
      imageFile: (path) => (path === '/kubelet' ? kubelet : STAND_INS[path]),
      // the kubelet registers its Node itself, with the bootstrap token of the user data
      registerNode: false,
      optBinOnDisk: o.optBinOnDisk ?? true,
      hostFiles: {
        'sysctl-fakes': oscSysctlKeys(osc)
          .map((k) => `${k}=${hostSysctl(k)}\n`)
          .join(''),
        'pause-images': pauseImagesOf(osc).join('\n'),
      },
    });
    const c = node.container;
    const readNode = async (): Promise<V1Node | undefined> => core.readNode({ name }).catch(() => undefined);
    const applyReport = async () =>
      readApplyReport((await readNode())?.metadata?.annotations as Record<string, string>);
    const journalOf = async (unit: string, lines = 40) =>
      (await c.exec(['journalctl', '--no-pager', '-n', String(lines), '-u', unit, '-o', 'cat'])).stdout;
    const booted = node;
    return {
      name,
      envtest,
      shoot,
      signer,
      core,
      node: booted,
      container: c,
      osc,
      override,
      version,
      firstChecksum,
      readNode,
      nodeChecksum: async () =>
        (await readNode())?.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData],
      journalOf,
      verdict: (checksum, timeoutMs = 150_000) =>
        eventually(
          `the agent's verdict on ${checksum.slice(0, 12)}`,
          async () => {
            const r = await applyReport();
            return r?.checksum === checksum && r.result !== 'Verifying' ? r : undefined;
          },
          timeoutMs,
          250,
        ).catch(async (e: Error) => {
          throw new Error(
            `${e.message}; the agent's journal:\n${await journalOf('gardener-node-agent.service', 60)}`,
          );
        }),
      stopNode: async () => {
        await node?.stop();
        node = undefined;
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
