/**
 * The packaged node agent: hack/build-node-agent.ts (esbuild bundle → Node 20 single executable) and
 * hack/build-node-agent-image.ts (OCI image layout tarball). The binary runs alone: copied into an
 * empty directory and started under `env -i` (no PATH, so no node and no node_modules), it must
 * behave exactly like the sources. Builds are cached by source hash under the user cache dir.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import {
  BINARY_NAME,
  type BuildResult,
  buildNodeAgent,
  bundleNodeAgent,
  bundleNodeAgentWithDoubles,
} from '../../hack/build-node-agent.js';
import { buildNodeAgentImage, MEDIA_TYPE, ociImage, sha256 } from '../../hack/build-node-agent-image.js';
import { EM_AARCH64, EM_X86_64, readElf } from '../../hack/elf.js';
import { debRoot } from '../../hack/image-runtime.js';
import { writeImages } from '../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1, oscV2, yamlOf } from '../../hack/landscape/ntv18-fixtures.js';
import { firstNonAscii } from '../../hack/single-executable.js';
import { NODE_AGENT_VERSION } from '../../node-agent/version.js';
import { untar } from '../support/tar-read.js';
import { type CliResult, runCli } from './support/cli-run.js';
import { fakeSystemctl } from './support/fake-systemctl.js';
import { snapshotTree, useTempDirs } from './support/harness.js';

/** Runs `binary` with an empty environment (plus the refuse-host-root guard and `env`) in `cwd`. */
function runAlone(binary: string, args: string[], cwd: string, env: readonly string[] = []): CliResult {
  const r = spawnSync('/usr/bin/env', ['-i', 'NODE_AGENT_REFUSE_HOST_ROOT=1', ...env, binary, ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (r.error) throw r.error;
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

function hasUmoci(): boolean {
  return spawnSync('umoci', ['--version']).status === 0;
}

describe('node-agent packaging: single executable and OCI image', function () {
  this.timeout(300_000);
  const tempDir = useTempDirs();
  let build: BuildResult;
  let buildDir: string;

  before(async function () {
    this.timeout(600_000);
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    buildDir = mkdtempSync(join(tmpdir(), 'gna-packaging-'));
    build = await buildNodeAgent({ outDir: buildDir });
  });

  after(async () => {
    const { rmSync } = await import('node:fs');
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  /** A copy of the binary as the only file of a fresh directory. */
  function aloneBinary(): { binary: string; cwd: string } {
    const cwd = tempDir('gna-alone-');
    const binary = join(cwd, BINARY_NAME);
    copyFileSync(build.binary, binary);
    statSync(binary);
    spawnSync('chmod', ['0755', binary]);
    return { binary, cwd };
  }

  /** The N-TV-18 fixtures' two OSCs as files of `dir`. */
  function writeOscs(dir: string): { v1: string; v2: string } {
    const v1 = join(dir, 'v1.yaml');
    const v2 = join(dir, 'v2.yaml');
    writeFileSync(v1, yamlOf(oscV1()));
    writeFileSync(v2, yamlOf(oscV2()));
    return { v1, v2 };
  }

  it('bundles into one CommonJS file that requires only built-in modules', () => {
    const bundle = readFileSync(build.bundle, 'utf8');
    const required = new Set([...bundle.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!));
    const { builtinModules } = require('node:module') as typeof import('node:module');
    const external = [...required].filter((m) => !m.startsWith('node:') && !builtinModules.includes(m));
    expect(external).to.deep.equal([]);
    expect(bundle).not.to.match(/\bimport\.meta\b/);
  });

  it('holds neither @kubernetes/client-node nor undici: the agent talks to the API server through runtime/kube on node:https', async () => {
    // client-node's generated models alone cost an idle agent ~38 MiB, undici's WebAssembly HTTP
    // parser ~25 MiB (docs/benchmarks.md)
    const packages = await bundleNodeAgent(join(tempDir('gna-bundle-'), 'agent.cjs'));
    expect([...packages.keys()]).to.include.members(['yaml', 'zod']);
    expect([...packages.keys()].filter((p) => p.startsWith('@kubernetes/') || p === 'undici')).to.deep.equal(
      [],
    );
  });

  it('is ASCII, so V8 holds its source (for the life of the process) at one byte a character', async () => {
    // a single character outside Latin-1 anywhere in the bundle doubled the idle agent's largest
    // heap object, its own source (docs/benchmarks.md, upstream-agent section)
    const bundle = join(tempDir('gna-ascii-'), 'agent.cjs');
    await bundleNodeAgent(bundle);
    const bytes = readFileSync(bundle);
    expect(firstNonAscii(bytes)).to.equal(undefined);
    expect(firstNonAscii(readFileSync(build.bundle))).to.equal(undefined);
    // whitespace and comments gone, identifiers kept (stack traces and logs name the functions)
    expect(bytes.length).to.be.below(1_100_000);
    expect(bytes.toString('latin1')).to.contain('function buildProgram(');
  });

  it('builds no zod parser with new Function: an idle agent keeps each one for good', () => {
    // a preload counts the parsers zod compiles (v4/core/doc.js: a Function whose body returns
    // the parser) while the bundle plans between two OSCs, decoding both
    const dir = tempDir('gna-jit-');
    const preload = join(dir, 'count-parsers.cjs');
    writeFileSync(
      preload,
      `let compiled = 0;
globalThis.Function = new Proxy(Function, {
  construct(target, args) {
    if (String(args[args.length - 1]).startsWith('return function (')) compiled++;
    return Reflect.construct(target, args);
  },
});
process.on('exit', () => process.stderr.write('COMPILED ' + compiled + '\\n'));
`,
    );
    const { v1, v2 } = writeOscs(dir);
    const r = spawnSync(
      process.execPath,
      ['-r', preload, build.bundle, 'plan', '--previous', v1, '--next', v2],
      {
        encoding: 'utf8',
      },
    );
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.contain('units');
    expect(/COMPILED (\d+)/.exec(r.stderr)?.[1]).to.equal('0');
  });

  it('holds no test double: no recording or simulated systemd, no fault injection; the doubles bundle does', async () => {
    // identifiers of hack/node-agent-doubles that survive bundling (strings, class names)
    const doubles = [
      'NODE_AGENT_TEST_SYSTEMD_FAULTS',
      'NODE_AGENT_TEST_KILL_AFTER_SYSTEMD_OPS',
      'record-timed:',
      'RecordingSystemd',
      'RecordingDisk',
    ];
    const dir = tempDir('gna-doubles-');
    const found = async (bundle: (out: string) => Promise<unknown>, name: string) => {
      const out = join(dir, name);
      await bundle(out);
      const text = readFileSync(out, 'utf8');
      return doubles.filter((d) => text.includes(d));
    };
    expect(await found(bundleNodeAgent, 'agent.cjs')).to.deep.equal([]);
    expect(readFileSync(build.bundle, 'utf8')).not.to.contain('NODE_AGENT_TEST_');
    expect(await found(bundleNodeAgentWithDoubles, 'agent-with-doubles.cjs')).to.deep.equal(doubles);
  });

  it('sets its V8 flags before any other module of the agent runs', () => {
    // a preload records each V8 flag the bundle sets, and whether zod (the first module that
    // builds anything sizeable: the schemas) had been evaluated by then
    const dir = tempDir('gna-flags-');
    const preload = join(dir, 'record-flags.cjs');
    writeFileSync(
      preload,
      `const v8 = require('node:v8');
const set = v8.setFlagsFromString;
const seen = [];
v8.setFlagsFromString = (flag) => { seen.push({ flag, zodLoaded: globalThis.__zod_globalConfig !== undefined }); set(flag); };
process.on('exit', () => process.stderr.write('FLAGS ' + JSON.stringify(seen) + '\\n'));
`,
    );
    const r = spawnSync(process.execPath, ['-r', preload, build.bundle, '--version'], { encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const flags = JSON.parse(/FLAGS (.*)/.exec(r.stderr)![1]!) as { flag: string; zodLoaded: boolean }[];
    expect(flags.map((f) => f.flag)).to.deep.equal([
      '--semi-space-growth-factor=1',
      '--no-turbofan',
      '--compact-on-every-full-gc',
      '--no-sparkplug',
      '--expose-gc',
      '--no-expose-gc',
    ]);
    expect(flags.every((f) => !f.zodLoaded)).to.equal(true);
  });

  it('--version: runs alone, without node or node_modules', () => {
    const { binary, cwd } = aloneBinary();
    const r = runAlone(binary, ['--version'], cwd);
    expect(r).to.include({ code: 0, stdout: `${NODE_AGENT_VERSION}\n` });
    expect(r.stderr).to.equal('');
    expect(readdirSync(cwd)).to.deep.equal([BINARY_NAME]);
    // The binary saw an empty environment: no PATH, no NODE_OPTIONS, no NODE_PATH.
    expect(spawnSync('/usr/bin/env', ['-i', '/usr/bin/env'], { encoding: 'utf8' }).stdout).to.equal('');
  });

  it('plan on the N-TV-18 fixtures prints the same as the sources', async () => {
    const { binary, cwd } = aloneBinary();
    const { v1: a, v2: b } = writeOscs(tempDir('gna-inputs-'));
    for (const [args, expected] of [
      [['plan', '--next', a], 'units (after a daemon-reload):'],
      [['plan', '--previous', a, '--next', b], '      +changeme\n'],
      [['plan', '--previous', a, '--next', b, '-o', 'json'], '"action": "remove"'],
      [['plan', '--previous', a, '--next', b, '-o', 'raw'], 'units:'],
    ] as const) {
      const packaged = runAlone(binary, [...args], cwd);
      const sources = await runCli([...args]);
      expect(packaged.code).to.equal(0);
      expect(packaged.stdout).to.equal(sources.stdout);
      expect(packaged.stdout).to.contain(expected);
    }
  });

  it('apply --systemd=systemctl on the N-TV-18 fixtures (v1, then v2) gives the same tree, output and systemctl calls as the sources', async () => {
    const { binary, cwd } = aloneBinary();
    const inputs = tempDir('gna-inputs-');
    const images = writeImages(join(inputs, 'images'), IMAGE_FILES);
    const { v1, v2 } = writeOscs(inputs);
    const side = (name: string) => {
      const dir = join(inputs, name);
      mkdirSync(join(dir, 'root'), { recursive: true });
      return { root: join(dir, 'root'), systemctl: fakeSystemctl(dir) };
    };
    const packagedSide = side('packaged');
    const sourcesSide = side('sources');
    const args = (s: { root: string }, osc: string) => [
      'apply',
      '--osc',
      osc,
      '--root',
      s.root,
      '--systemd=systemctl',
      '--images',
      images,
    ];
    const path = (s: typeof packagedSide) => `${s.systemctl.binDir}:/usr/bin:/bin`;
    for (const osc of [v1, v2]) {
      const packaged = runAlone(binary, args(packagedSide, osc), cwd, [`PATH=${path(packagedSide)}`]);
      const sources = await runCli(args(sourcesSide, osc), { PATH: path(sourcesSide) });
      expect(packaged.code, packaged.stderr).to.equal(0);
      expect(sources.code).to.equal(0);
      expect(packaged.stdout).to.equal(sources.stdout);
      expect(snapshotTree(packagedSide.root)).to.deep.equal(snapshotTree(sourcesSide.root));
      expect(packagedSide.systemctl.calls()).to.deep.equal(sourcesSide.systemctl.calls());
    }
    expect(packagedSide.systemctl.verbs()).to.include.members(['daemon-reload', 'enable', 'restart']);
    expect(readFileSync(join(packagedSide.root, 'third/file'), 'utf8')).to.equal('file3');
  });

  it('bootstrap runs alone too, and refuses the host root under NODE_AGENT_REFUSE_HOST_ROOT=1', () => {
    const { binary, cwd } = aloneBinary();
    const refused = runAlone(binary, ['bootstrap'], cwd);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.contain('refusing to work on the host root');
    const inputs = tempDir('gna-inputs-');
    const root = join(inputs, 'root');
    mkdirSync(root);
    const config = join(inputs, 'config.yaml');
    writeFileSync(
      config,
      `apiVersion: nodeagent.config.gardener.cloud/v1alpha1
kind: NodeAgentConfiguration
apiServer:
  server: https://api.example.org
controllers:
  operatingSystemConfig:
    secretName: osc
    kubernetesVersion: 1.28.2
  token:
    syncConfigs:
    - secretName: gardener-node-agent
      path: /var/lib/gardener-node-agent/credentials/token
`,
    );
    const systemctl = fakeSystemctl(inputs);
    const r = runAlone(
      binary,
      ['bootstrap', '--config', config, '--root', root, '--systemd=systemctl'],
      cwd,
      [`PATH=${systemctl.binDir}:/usr/bin:/bin`],
    );
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.contain('Bootstrap procedure finished, terminating');
    expect(systemctl.verbs()).to.deep.equal(['daemon-reload', 'enable', 'start', 'disable']);
  });

  it('the OCI image tarball: an index of amd64 and arm64 images, each holding its binary as /gardener-node-agent', async () => {
    const dir = tempDir('gna-image-');
    const arm64 = await buildNodeAgent({ arch: 'arm64', outDir: join(dir, 'arm64') });
    const { archive, indexDigest, manifests, name } = await buildNodeAgentImage({
      arches: ['amd64', 'arm64'],
      binaries: { amd64: build.binary, arm64: arm64.binary },
      out: join(dir, 'image.tar'),
      name: 'registry.example.org/gardener/node-agent:v9.9.9',
    });
    // Our own reader: layout, index, image index, manifests, configs, layers, every digest and size.
    const files = untar(readFileSync(archive));
    expect(JSON.parse(files.get('oci-layout')!.data.toString())).to.deep.equal({
      imageLayoutVersion: '1.0.0',
    });
    for (const [path, { data }] of files) {
      if (path.startsWith('blobs/sha256/')) expect(sha256(data)).to.equal(`sha256:${path.slice(13)}`);
    }
    const blob = (digest: string) => files.get(`blobs/sha256/${digest.slice('sha256:'.length)}`)!.data;
    const index = JSON.parse(files.get('index.json')!.data.toString());
    expect(index).to.deep.include({ schemaVersion: 2, mediaType: MEDIA_TYPE.index });
    expect(index.manifests).to.have.length(1);
    expect(index.manifests[0]).to.deep.include({ mediaType: MEDIA_TYPE.index, digest: indexDigest });
    expect(index.manifests[0].annotations).to.deep.equal({
      'io.containerd.image.name': name,
      'org.opencontainers.image.ref.name': 'v9.9.9',
    });
    expect(index.manifests[0].size).to.equal(blob(indexDigest).length);
    const imageIndex = JSON.parse(blob(indexDigest).toString());
    expect(imageIndex.manifests.map((m: { platform: unknown }) => m.platform)).to.deep.equal([
      { architecture: 'amd64', os: 'linux' },
      { architecture: 'arm64', os: 'linux' },
    ]);
    const layers = new Map<string, Buffer>();
    for (const [arch, binary, machine] of [
      ['amd64', build.binary, EM_X86_64],
      ['arm64', arm64.binary, EM_AARCH64],
    ] as const) {
      const manifestDigest = manifests.get(arch)!;
      const entry = imageIndex.manifests.find((m: { digest: string }) => m.digest === manifestDigest);
      expect(entry, arch).to.deep.include({
        mediaType: MEDIA_TYPE.manifest,
        size: blob(manifestDigest).length,
      });
      const manifest = JSON.parse(blob(manifestDigest).toString());
      const config = JSON.parse(blob(manifest.config.digest).toString());
      expect(config).to.deep.include({ os: 'linux', architecture: arch });
      expect(config.config.Entrypoint).to.deep.equal(['/gardener-node-agent']);
      expect(config.config.Labels['io.gardener.osc.node']).to.match(
        new RegExp(`^node-linux-${arch === 'amd64' ? 'x64' : 'arm64'}@20\\.20\\.2 sha512-`),
      );
      expect(manifest.layers).to.have.length(1);
      const layer = blob(manifest.layers[0].digest);
      expect(manifest.layers[0]).to.include({ mediaType: MEDIA_TYPE.layer, size: layer.length });
      const layerTar = gunzipSync(layer);
      expect(config.rootfs).to.deep.equal({ type: 'layers', diff_ids: [sha256(layerTar)] });
      const layerFiles = untar(layerTar);
      expect([...layerFiles.keys()]).to.deep.equal(['gardener-node-agent']);
      expect(layerFiles.get('gardener-node-agent')!.mode).to.equal(0o755);
      const data = layerFiles.get('gardener-node-agent')!.data;
      expect(sha256(data)).to.equal(sha256(readFileSync(binary)));
      expect(readElf(data).machine, arch).to.equal(machine);
      layers.set(arch, data);
    }

    // The arm64 binary runs on an arm64 node's glibc: here under qemu, with Debian's arm64 libc6,
    // libgcc-s1 and libstdc++6 as its root for the loader and libraries.
    const qemu = spawnSync(
      '/usr/bin/env',
      [
        '-i',
        'NODE_AGENT_REFUSE_HOST_ROOT=1',
        'qemu-aarch64-static',
        '-L',
        debRoot('arm64').root,
        arm64.binary,
        '--version',
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH } },
    );
    expect(qemu.status, `${qemu.stderr} (apt-get install qemu-user-static)`).to.equal(0);
    expect(qemu.stdout).to.equal(`${NODE_AGENT_VERSION}\n`);

    // Deterministic: the same binary gives the same image, whenever it is built.
    const small = Buffer.from('#!/bin/sh\n');
    expect(ociImage({ binary: small, name }).manifestDigest).to.equal(
      ociImage({ binary: small, name }).manifestDigest,
    );

    // Unpacked by a real OCI tool (Debian's umoci), the extracted binary runs alone.
    const layout = join(dir, 'layout');
    mkdirSync(layout);
    expect(spawnSync('tar', ['-xf', archive, '-C', layout]).status).to.equal(0);
    let extracted: string;
    if (hasUmoci()) {
      // umoci unpacks one image: a layout naming the amd64 manifest, the blobs shared (it calls a
      // tag naming an index of two images ambiguous).
      const amd64Layout = join(dir, 'layout-amd64');
      mkdirSync(amd64Layout);
      symlinkSync(join(layout, 'blobs'), join(amd64Layout, 'blobs'));
      copyFileSync(join(layout, 'oci-layout'), join(amd64Layout, 'oci-layout'));
      const digest = manifests.get('amd64')!;
      writeFileSync(
        join(amd64Layout, 'index.json'),
        JSON.stringify({
          schemaVersion: 2,
          manifests: [
            {
              mediaType: MEDIA_TYPE.manifest,
              digest,
              size: blob(digest).length,
              annotations: { 'org.opencontainers.image.ref.name': 'v9.9.9' },
            },
          ],
        }),
      );
      const bundle = join(dir, 'bundle');
      const r = spawnSync('umoci', ['unpack', '--rootless', '--image', `${amd64Layout}:v9.9.9`, bundle], {
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).to.equal(0);
      extracted = join(bundle, 'rootfs', BINARY_NAME);
    } else {
      // Without umoci the layer our reader extracted is what runs.
      extracted = join(dir, BINARY_NAME);
      writeFileSync(extracted, layers.get('amd64')!, { mode: 0o755 });
    }
    const cwd = tempDir('gna-alone-');
    const r = runAlone(extracted, ['--version'], cwd);
    expect(r).to.include({ code: 0, stdout: `${NODE_AGENT_VERSION}\n` });
  });
});
