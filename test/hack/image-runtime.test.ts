/**
 * hack/elf.ts and hack/image-runtime.ts: what an image's executable runs on, per architecture. The
 * ELF reader gives for the pinned official Node.js binaries what `readelf -d` and `readelf -l`
 * print for them (the loader and the six libraries Node links); the runtime of each architecture is
 * closed over DT_NEEDED from Debian's packages for that architecture; a binary of the wrong
 * architecture, a missing library and a non-ELF file are refused.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { NODE_AGENT } from '../../hack/build-node-agent.js';
import { EM_AARCH64, EM_X86_64, readElf } from '../../hack/elf.js';
import {
  ARCHES,
  debRoot,
  IMAGE_ARCHES,
  integrityOf,
  nodeBinary,
  parseArch,
  resolveIn,
  runtimeFor,
} from '../../hack/image-runtime.js';
import { POSTJECT_VERSION, sourceHash } from '../../hack/single-executable.js';

const NODE_NEEDS = [
  'libdl.so.2',
  'libstdc++.so.6',
  'libm.so.6',
  'libgcc_s.so.1',
  'libpthread.so.0',
  'libc.so.6',
];

describe('image runtime: the pinned Node per architecture, its libraries from Debian', function () {
  this.timeout(120_000);

  it("reads the official Node binaries' machine, loader and DT_NEEDED as readelf prints them", () => {
    // `readelf -d` / `readelf -l` of node-linux-{x64,arm64}@20.20.2's bin/node
    expect(readElf(readFileSync(nodeBinary('amd64')))).to.deep.equal({
      machine: EM_X86_64,
      interpreter: '/lib64/ld-linux-x86-64.so.2',
      needed: [...NODE_NEEDS, 'ld-linux-x86-64.so.2'],
    });
    expect(readElf(readFileSync(nodeBinary('arm64')))).to.deep.equal({
      machine: EM_AARCH64,
      interpreter: '/lib/ld-linux-aarch64.so.1',
      needed: [...NODE_NEEDS, 'ld-linux-aarch64.so.1'],
    });
  });

  it('keeps only the pinned Node: the cached binaries carry the integrity npm publishes', () => {
    expect(integrityOf(Buffer.alloc(0))).to.equal(
      'sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==',
    );
    for (const arch of IMAGE_ARCHES) {
      const recorded = readFileSync(join(nodeBinary(arch), '..', 'integrity'), 'utf8').trim();
      expect(recorded, arch).to.equal(ARCHES[arch].integrity);
    }
  });

  it("closes each architecture's runtime over DT_NEEDED from its own Debian packages", () => {
    for (const arch of IMAGE_ARCHES) {
      const debs = debRoot(arch);
      const runtime = runtimeFor(readFileSync(nodeBinary(arch)), arch, debs);
      const triplet = ARCHES[arch].multiarch;
      expect([...runtime.files.keys()], arch).to.have.members([
        runtime.interpreter,
        ...NODE_NEEDS.filter((l) => l !== 'libstdc++.so.6').map((l) => `/lib/${triplet}/${l}`),
        `/usr/lib/${triplet}/libstdc++.so.6`,
      ]);
      for (const [path, data] of runtime.files)
        expect(readElf(data).machine, path).to.equal(ARCHES[arch].elfMachine);
      expect(runtime.debs).to.deep.equal(debs.versions);
    }
  });

  it('refuses a binary of another architecture, a library no package holds, and non-ELF files', () => {
    expect(() => runtimeFor(readFileSync(nodeBinary('amd64')), 'arm64', debRoot('arm64'))).to.throw(
      /not arm64/,
    );
    const empty = mkdtempSync(join(tmpdir(), 'osc-runtime-'));
    try {
      mkdirSync(join(empty, 'lib64'));
      writeFileSync(join(empty, 'lib64/ld-linux-x86-64.so.2'), 'loader');
      expect(() =>
        runtimeFor(readFileSync(nodeBinary('amd64')), 'amd64', { root: empty, versions: {} }),
      ).to.throw(/libdl\.so\.2 \(needed on amd64\) is in none of/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    expect(() => readElf(Buffer.from('#!/bin/sh\n'.padEnd(64)))).to.throw(/not an ELF file/);
    const elf32 = Buffer.alloc(64);
    elf32.write('\x7fELF\x01\x01', 'latin1');
    expect(() => readElf(elf32)).to.throw(/64-bit little-endian/);
    expect(() => parseArch('riscv64')).to.throw(/expected one of amd64, arm64/);
  });

  it('follows relative and absolute symbolic links inside the unpacked packages only', () => {
    const root = mkdtempSync(join(tmpdir(), 'osc-resolve-'));
    try {
      mkdirSync(join(root, 'lib/t'), { recursive: true });
      writeFileSync(join(root, 'lib/t/real.so'), 'x');
      symlinkSync('t/real.so', join(root, 'lib/rel.so'));
      symlinkSync('/lib/rel.so', join(root, 'lib/abs.so'));
      expect(resolveIn(root, '/lib/abs.so')).to.equal(join(root, 'lib/t/real.so'));
      symlinkSync('/nowhere', join(root, 'lib/dangling.so'));
      expect(() => resolveIn(root, '/lib/dangling.so')).to.throw(/\/nowhere: not in/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('caches each architecture apart: the target is part of the build hash', () => {
    expect(sourceHash(NODE_AGENT, POSTJECT_VERSION, 'amd64')).not.to.equal(
      sourceHash(NODE_AGENT, POSTJECT_VERSION, 'arm64'),
    );
  });
});
