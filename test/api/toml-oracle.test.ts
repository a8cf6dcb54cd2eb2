/**
 * Differential test: our TOML codec against go-toml v1.9.5 (hack/toml-oracle), the library
 * gardener v1.150.0's node agent rewrites containerd's config.toml with. Go decodes the document
 * into `map[string]any` and encodes it again; we do the same, and the bytes must be equal. The
 * documents are generated (keys needing quotes, control characters, integers at the int64 edges,
 * floats that are and are not float32, nested and empty tables, arrays of tables) and written by
 * hand in the forms containerd's `config default` prints (go-toml v1 and v2 quoting, comments).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { encodeGoToml } from '../../api/toml/go-toml-encode.js';
import { decodeToml } from '../../api/toml/toml-decode.js';
import type { TomlTable, TomlValue } from '../../api/toml/toml-value.js';
import { buildGoBinary } from '../../hack/prepare/go-binary.js';

interface OracleRequest {
  readonly toml: string;
  readonly path?: readonly string[];
  readonly values?: unknown;
}

function oracle(requests: readonly OracleRequest[]): { toml?: string; error?: string }[] {
  const binary = buildGoBinary(join(import.meta.dirname, '../../hack/toml-oracle'), 'toml-oracle');
  const input = `${requests.map((r) => JSON.stringify(r)).join('\n')}\n`;
  const output = execFileSync(binary, { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  return output
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
}

const CHARS = [
  ...'abzAZ09_-.',
  ' ',
  '"',
  "'",
  '\\',
  '\n',
  '\t',
  '\r',
  '\b',
  '\f',
  '\u0001',
  '\u007f',
  'é',
  '\u{1F600}',
  '#',
  '=',
  '[',
  ']',
];
// U+001F is written raw (go-toml escapes below it), which Go's reader then refuses: see the
// hand-written documents.
const text = fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 12 });
/**
 * Keys without escapes: go-toml reads a quoted table-header key raw, up to the next `"`, without
 * unescaping it (go-toml v1.9.5 keysparsing.go `parseKey`), so it does not read back what it
 * writes for such a key; containerd's keys never need one. It writes an empty key bare, which
 * nothing reads back either.
 */
const KEY_CHARS = [...'abzAZ09_-.', ' ', "'", '#', '=', 'é', '\u{1F600}'];
const key = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'abzAZ09_-'), minLength: 1, maxLength: 6 }),
  fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: 1, maxLength: 12 }),
);
const float = fc.oneof(
  fc.double({ noNaN: true }),
  fc.float({ noNaN: true }).map((f) => f),
  fc.constantFrom(0, -0, 0.1, 0.5, 3, 1e21, 1e-7, 123456789.125, 2 ** 53, Number.NaN),
);
const integer = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.constantFrom(0n, -1n, 2n ** 63n - 1n, -(2n ** 63n)),
);
const scalar: fc.Arbitrary<TomlValue> = fc.oneof(text, integer, float, fc.boolean());
const value = fc.letrec<{ node: TomlValue; table: TomlTable }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(scalar, { maxLength: 4 }),
    fc.array(tie('table'), { minLength: 1, maxLength: 2 }),
    tie('table'),
  ),
  table: fc.dictionary(key, tie('node'), { maxKeys: 4 }).map((d) => d as TomlTable),
})).table;

/** containerd's `config default` forms: go-toml v1 (1.x) and v2 (2.x) quoting, comments, arrays. */
const CONTAINERD_LIKE = [
  `version = 2
root = "/var/lib/containerd"
oom_score = 0
imports = []

[grpc]
  address = "/run/containerd/containerd.sock"
  max_recv_message_size = 16777216

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.8"
    max_concurrent_downloads = 3
    enable_tls_streaming = false

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = ""

    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/opt/cni/bin"
      conf_dir = "/etc/cni/net.d"

  [plugins."io.containerd.gc.v1.scheduler"]
    deletion_threshold = 0
    pause_threshold = 0.02
    schedule_delay = "0s"
`,
  `version = 3
root = '/var/lib/containerd'
state = '/run/containerd'
disabled_plugins = []

[grpc]
  address = '/run/containerd/containerd.sock'
  uid = 0

[plugins]
  [plugins.'io.containerd.cri.v1.images']
    snapshotter = 'overlayfs'
    max_concurrent_downloads = 3
    image_pull_progress_timeout = '5m0s'

    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = 'registry.k8s.io/pause:3.10'

  [plugins.'io.containerd.cri.v1.runtime']
    cdi_spec_dirs = ['/etc/cdi', '/var/run/cdi']
    drain_exec_sync_io_timeout = '0s'

    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
      BinaryName = ''
      SystemdCgroup = false

  [plugins.'io.containerd.gc.v1.scheduler']
    pause_threshold = 0.02
    deletion_threshold = 0

[cgroup]
  path = ''

[timeouts]
  'io.containerd.timeout.shim.cleanup' = '5s'
`,
  `# a comment
a.b.c = 1 # trailing
"quoted key" = """
multi
line\\
   joined"""
lit = '''
raw \\n text'''
hex = 0xDEAD_beef
oct = 0o755
bin = 0b1010
exp = 1e3
under = 1_000.5
inf = -inf
unit_separator = "\\u001F and \\u0001"
inline = { x = 1, y = { z = "deep" }, e = {} }
mixed = [ 1,
  2, # comment
]
[[fruit]]
name = "apple"
[[fruit]]
name = "banana"
[fruit.extra]
`,
];

describe('TOML codec against Go (go-toml v1.9.5)', function () {
  this.timeout(180_000);

  it('decodes and re-encodes 2000 generated documents byte for byte as Go does', () => {
    const tables = fc.sample(value, { numRuns: 2000, seed: 20261202 });
    const documents = tables.map(encodeGoToml);
    const go = oracle(documents.map((toml) => ({ toml })));
    let compared = 0;
    for (const [i, toml] of documents.entries()) {
      const result = go[i]!;
      // Go cannot read back some of what it writes (a key that starts and ends with `"` is not
      // quoted again): such documents prove nothing.
      if (result.toml === undefined) continue;
      compared++;
      expect(encodeGoToml(decodeToml(toml)), `document ${i}:\n${toml}`).to.equal(result.toml);
    }
    expect(compared, 'documents Go could read').to.be.greaterThan(documents.length * 0.9);
  });

  it("reads containerd's config default forms and writes them as Go does", () => {
    const go = oracle(CONTAINERD_LIKE.map((toml) => ({ toml })));
    for (const [i, toml] of CONTAINERD_LIKE.entries()) {
      expect(go[i]!.error, `document ${i}`).to.equal(undefined);
      expect(encodeGoToml(decodeToml(toml)), `document ${i}`).to.equal(go[i]!.toml);
    }
  });
});
