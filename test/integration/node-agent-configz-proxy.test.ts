/**
 * The in-effect check of an agent with a per-node identity reads its kubelet's /configz through
 * the API server's node proxy (node-agent/controllers/operatingsystemconfig/in-effect/configz-fetch.ts).
 * Here a real kube-apiserver proxies to a Node whose status points at a stand-in kubelet on this
 * machine's own address (the API server never proxies to a loopback address); who may do so is the
 * permission matrix's to show (permission-matrix.test.ts).
 */
import { networkInterfaces } from 'node:os';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { type Envtest, startEnvtest } from '../../hack/landscape/envtest.js';
import {
  ConfigzNotJudged,
  configzThroughApiServer,
} from '../../node-agent/controllers/operatingsystemconfig/in-effect/configz-fetch.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { type ConfigzServer, startConfigzServer } from '../support/configz-server.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('the kubelet configz through the node proxy of a real kube-apiserver', function () {
  this.timeout(60_000);
  let env: Envtest;
  let core: CoreV1Api;
  let http: KubeHttp;
  let kubelet: ConfigzServer;
  const node = `configz-proxy-${Date.now().toString(36)}`;
  const signal = new AbortController().signal;

  /** An IPv4 address of this machine the API server will proxy to (not loopback, not link-local). */
  const machineAddress = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.'))?.address;

  before(async function () {
    this.timeout(20 * 60_000);
    if (!machineAddress) {
      process.stdout.write('      skipped: this machine has no IPv4 address but loopback to proxy to\n');
      this.skip();
    }
    env = await startEnvtest({ name: 'seed' });
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    http = new KubeHttp(env.kubeConfig);
    kubelet = await startConfigzServer({ maxPods: 111, cgroupDriver: 'systemd' }, machineAddress);
    await core.createNode({ body: { metadata: { name: node } } });
    await core.patchNodeStatus(
      {
        name: node,
        body: {
          status: {
            addresses: [{ type: 'InternalIP', address: machineAddress! }],
            daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } },
          },
        },
      },
      merge,
    );
  });

  after(async () => {
    await core?.deleteNode({ name: node }).catch(() => undefined);
    await kubelet?.close();
    await http?.close();
  });

  it("returns the kubelet's kubeletconfig, asked at the port the Node's status names", async () => {
    const fetch = configzThroughApiServer(http, () => node);
    expect(await fetch(10250, signal)).to.deep.equal({ maxPods: 111, cgroupDriver: 'systemd' });
    expect(kubelet.requests.map((r) => r.path)).to.include('/configz');
  });

  it('a kubelet the API server cannot reach is not judged', async () => {
    const down = await startConfigzServer({}, machineAddress);
    const port = down.port;
    await down.close();
    const gone = `${node}-gone`;
    await core.createNode({ body: { metadata: { name: gone } } });
    try {
      await core.patchNodeStatus(
        {
          name: gone,
          body: {
            status: {
              addresses: [{ type: 'InternalIP', address: machineAddress! }],
              daemonEndpoints: { kubeletEndpoint: { Port: port } },
            },
          },
        },
        merge,
      );
      const error = await configzThroughApiServer(http, () => gone)(10250, signal).then(
        () => expect.fail('resolved'),
        (e: Error) => e,
      );
      expect(error, error.message).to.be.instanceOf(ConfigzNotJudged);
    } finally {
      await core.deleteNode({ name: gone }).catch(() => undefined);
    }
  });
});
