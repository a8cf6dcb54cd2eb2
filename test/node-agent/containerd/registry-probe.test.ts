/**
 * Registries with a readiness probe (gardener v1.150.0 containerd.go `addRegistryToContainerdFunc`,
 * changes.go `computeContainerdRegistryDiffs`): probed when new or changed, hosts.toml written only
 * once every host answered, bounded by a deadline after which the apply fails naming the registry.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import type { OperatingSystemConfig } from '../../../api/index.js';
import { writeImages } from '../../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1 } from '../../../hack/landscape/ntv18-fixtures.js';
import { FakeContainerd } from '../../../hack/node-agent-doubles/fake-containerd.js';
import { registryChanges } from '../../../node-agent/containerd/registry-hosts.js';
import { httpProbeHost, probeRegistry } from '../../../node-agent/containerd/registry-probe.js';
import { applyTo } from '../support/apply-fixture.js';
import { useTempDirs } from '../support/harness.js';

function withRegistries(registries: unknown[]): OperatingSystemConfig {
  const base = oscV1();
  return {
    ...base,
    spec: {
      ...base.spec,
      criConfig: { name: 'containerd', containerd: { sandboxImage: 'pause:3.10', registries } },
    },
  } as OperatingSystemConfig;
}

const host = { path: (p: string) => p };

describe('node-agent containerd: registry readiness probes', () => {
  const tempDir = useTempDirs();
  let server: Server;
  let url: string;
  let requests = 0;

  before(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.statusCode = 404; // any answer counts
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('probes registries with readinessProbe that are new or changed, as upstream computes them', () => {
    const a = { upstream: 'a.io', hosts: [{ url: 'https://a' }], readinessProbe: true };
    const b = { upstream: 'b.io', hosts: [{ url: 'https://b' }], readinessProbe: true };
    const c = { upstream: 'c.io', hosts: [{ url: 'https://c' }] };
    const before = withRegistries([a, b, c]);
    expect(registryChanges(undefined, before).toProbe).to.deep.equal(['a.io', 'b.io']);
    const after = withRegistries([
      { ...a, hosts: [{ url: 'https://a', capabilities: [] }] }, // empty list: semantically unchanged
      { ...b, server: 'https://b.io' },
      { ...c, server: 'https://c.io' },
    ]);
    expect(registryChanges(before, after).toProbe).to.deep.equal(['b.io']);
  });

  it('resolves once every host answered, with any status', async () => {
    const before = requests;
    await probeRegistry(host, { upstream: 'x', hosts: [{ url }, { url: `${url}/v2/` }] });
    expect(requests - before).to.equal(2);
  });

  it('retries every interval and fails at the deadline naming the registry and host', async () => {
    let calls = 0;
    const started = Date.now();
    const error = await probeRegistry(
      host,
      { upstream: 'down.io', hosts: [{ url: 'http://127.0.0.1:1' }] },
      {
        intervalMs: 20,
        deadlineMs: 200,
        requestTimeoutMs: 100,
        probeHost: (u, ca, t) => {
          calls++;
          return httpProbeHost(u, ca, t);
        },
      },
    ).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.match(
      /^registry down\.io not ready within 200 ms: failed to reach registry http:\/\/127\.0\.0\.1:1 for upstream down\.io/,
    );
    expect(calls).to.be.greaterThan(2);
    expect(Date.now() - started).to.be.lessThan(2_000);
  });

  it('writes hosts.toml only after its probe succeeded, and fails the apply when it never does', async () => {
    const root = tempDir('gna-root-');
    const images = writeImages(tempDir('gna-images-'), IMAGE_FILES);
    const o = { containerd: new FakeContainerd(), agentPath: '/bin', hostName: 'n' };
    const hostsToml = (upstream: string) => join(root, 'etc/containerd/certs.d', upstream, 'hosts.toml');
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let probed = false;
    const applying = applyTo(
      root,
      withRegistries([
        { upstream: 'plain.io', hosts: [{ url: 'https://plain' }] },
        { upstream: 'probed.io', hosts: [{ url: 'https://probed' }], readinessProbe: true },
      ]),
      images,
      {
        ...o,
        registryProbe: {
          probeHost: async () => {
            probed = true;
            await gate;
          },
        },
      },
    );
    while (!probed) await new Promise((r) => setTimeout(r, 5));
    expect(existsSync(hostsToml('plain.io'))).to.equal(true);
    expect(existsSync(hostsToml('probed.io')), 'before its probe answered').to.equal(false);
    release();
    expect((await applying).result.outcome).to.equal('applied');
    expect(existsSync(hostsToml('probed.io'))).to.equal(true);

    const unreachable = await applyTo(
      root,
      withRegistries([{ upstream: 'never.io', hosts: [{ url: 'https://never' }], readinessProbe: true }]),
      images,
      {
        ...o,
        registryProbe: {
          intervalMs: 10,
          deadlineMs: 50,
          probeHost: () => Promise.reject(new Error('refused')),
        },
      },
    ).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(unreachable?.message).to.include(
      'registry never.io not ready within 50 ms: failed to reach registry https://never for upstream never.io: refused',
    );
    expect(existsSync(hostsToml('never.io'))).to.equal(false);
  });
});
