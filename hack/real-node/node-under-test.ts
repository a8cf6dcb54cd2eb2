/**
 * A worker node of the shoot as a real machine starts: a real node (hack/real-node) whose
 * cloud-init stand-in runs the pool's provision user data at boot; node-init takes the agent's
 * single executable from its image (the image directory, bind-mounted read-only as what the ctr
 * stand-in serves) and hands over to gardener-node-agent.service under the node's systemd, which
 * talks to the shoot API server through the node's loopback (api-proxy.ts). Stand-ins of the
 * kubelet and valitail (hack/real-node/stubs) are the files of their images.
 */
import { copyFileSync, existsSync, linkSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { MACHINE_NAME_PLACEHOLDER } from '../../components/node-init/node-init-v150.js';
import { imageDirectoryName } from '../../node-agent/registry/directory-extractor.js';
import { type Envtest, envtestBinaries } from '../landscape/envtest.js';
import { serveUnixProxy, type UnixProxy } from './api-proxy.js';
import { NODE_HOST_DIR, NodeBarriers } from './barriers.js';
import { realNodeCache } from './cache.js';
import type { Container } from './container.js';
import { RealNode } from './real-node.js';
import type { ShootForNodes } from './shoot.js';

const STUBS = resolve(import.meta.dirname, '../../hack/real-node/stubs');

/** What each image holds on a real node: the agent itself, stand-ins for the rest. */
function imageFile(path: string, agentBinary: string): string {
  if (path === '/gardener-node-agent') return agentBinary;
  const stub = join(STUBS, path.split('/').at(-1)!);
  if (path === '/kubelet' || path === '/usr/bin/valitail') return stub;
  throw new Error(`no stand-in for ${path} of an image in hack/real-node/stubs`);
}

/**
 * Puts the files of `images` into a node's image directory (the agent: `agentBinary`; the rest:
 * `imageFile`, else the stand-ins). The directory is bind-mounted into the node, so images linked
 * after boot are there for the node's ctr too.
 */
export function linkImages(
  imagesDir: string,
  images: ShootForNodes['images'],
  agentBinary: string,
  file?: (path: string) => string | undefined,
): void {
  mkdirSync(imagesDir, { recursive: true });
  for (const { image, path } of images) {
    const target = join(imagesDir, imageDirectoryName(image), path);
    if (existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    const source = file?.(path) ?? imageFile(path, agentBinary);
    try {
      linkSync(source, target); // the agent is ~100 MB: a link where the file system allows it
    } catch {
      copyFileSync(source, target);
    }
  }
}

export interface NodeUnderTest {
  readonly node: RealNode;
  readonly container: Container;
  readonly name: string;
  /** Holds the node's agent or a stand-in at a point until the test releases it. */
  readonly barriers: NodeBarriers;
  stop(): Promise<void>;
}

export async function provisionNode(o: {
  name: string;
  /** What the node takes of the shoot (the demo's nodes register themselves: `registerNode: false`). */
  shoot: Pick<ShootForNodes, 'images' | 'userData' | 'registerNode'>;
  envtest: Pick<Envtest, 'server'>;
  agentBinary: string;
  /** The image to boot (default: hack/real-node/build.sh's). */
  cache?: string;
  /** The file of an image at `path` where it is not a stand-in (e.g. the real kubelet). */
  imageFile?: (path: string) => string | undefined;
  /** Files of this node's host directory (NODE_HOST_DIR inside), e.g. what a prep unit reads. */
  hostFiles?: Readonly<Record<string, string>>;
  /** Whether the harness registers the Node (default); false: the kubelet registers it. */
  registerNode?: boolean;
  /**
   * `/opt/bin` (where the node's binaries are installed) on a directory of the host's disk instead
   * of the node's root. That root is an overlay of the image (the host's disk) and a tmpfs, and
   * overlayfs reports a file's device and inode other than /proc/self/maps shows for its mapping:
   * V8 then cannot map its built-in code from the executable's file into its code range (it checks
   * both) and copies it, 1.6 MB of anonymous memory in every Node.js process started from `/opt/bin`.
   * A cloud machine's `/opt/bin` lies on a disk file system, as the real-kubelet nodes' do
   * (real-kubelet-node.ts; docs/real-node.md#a-real-kubelet). The directory goes with the node.
   */
  optBinOnDisk?: boolean;
}): Promise<NodeUnderTest> {
  const node = new RealNode({
    name: o.name,
    cache: o.cache ?? realNodeCache(),
    supervisor: join(envtestBinaries(), 'supervisor'),
  });
  let proxy: UnixProxy | undefined;
  try {
    const images = node.hostFile('images');
    linkImages(images, o.shoot.images, o.agentBinary, o.imageFile);
    // machine-controller-manager puts the Machine's name into a v1.150 pool's user data
    const userData = node.hostFile(
      'user-data',
      o.shoot.userData.replaceAll(MACHINE_NAME_PLACEHOLDER, o.name),
      0o600,
    );
    const hostDir = node.hostFile('host');
    mkdirSync(hostDir, { recursive: true });
    for (const [file, content] of Object.entries(o.hostFiles ?? {})) node.hostFile(`host/${file}`, content);
    const apiServer = new URL(o.envtest.server);
    proxy = await serveUnixProxy(join(hostDir, 'kube-apiserver.sock'), {
      host: apiServer.hostname,
      port: Number(apiServer.port),
    });
    if (o.registerNode !== false) await o.shoot.registerNode(o.name);
    const optBin = o.optBinOnDisk ? node.hostFile('opt-bin') : undefined;
    if (optBin) mkdirSync(optBin, { mode: 0o755 });
    const container = await node.boot([
      { host: userData, inside: '/var/lib/cloud/user-data', readOnly: true },
      { host: images, inside: '/var/lib/real-node/images', readOnly: true },
      { host: hostDir, inside: NODE_HOST_DIR },
      ...(optBin ? [{ host: optBin, inside: '/opt/bin' }] : []),
    ]);
    const running = proxy;
    return {
      node,
      container,
      name: o.name,
      barriers: new NodeBarriers(hostDir),
      stop: async () => {
        await node.stop();
        await running.close();
      },
    };
  } catch (e) {
    await node.stop();
    await proxy?.close();
    throw e;
  }
}
