/**
 * `init-containerd` (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/containerd/initializer.go)
 * prepares containerd's configuration before containerd starts: a default config.toml when the OS
 * image has none, Gardener's pause image as sandbox image, registry hosts from
 * /etc/containerd/certs.d, drop-in files from /etc/containerd/conf.d, and the directory for extra
 * runtime binaries on containerd's PATH. It runs before every containerd start, so each step is
 * idempotent; every edit of config.toml is a rename, never a half-written file.
 */
import { shellQuote } from '../shell-quote.js';

export interface InitContainerdInput {
  readonly pauseImage: string;
  /** Where extensions install runtime shims (e.g. gVisor); added to containerd's PATH. */
  readonly runtimeBinDir: string;
}

/**
 * The script's fixed locations. They are ordinary variables at its top so that a test can run the
 * script against a temporary directory instead of the machine's /etc.
 */
export const INIT_CONTAINERD_LOCATIONS = {
  configFile: '/etc/containerd/config.toml',
  registryHostsDir: '/etc/containerd/certs.d',
  importsDir: '/etc/containerd/conf.d',
  envDropIn: '/etc/systemd/system/containerd.service.d/30-env_config.conf',
} as const;

/** containerd 1.x's CRI registry table, as `containerd config default` writes it. */
const REGISTRY_TABLE = '[plugins."io.containerd.grpc.v1.cri".registry]';

export function initContainerdScript(input: InitContainerdInput): string {
  const q = shellQuote;
  const at = INIT_CONTAINERD_LOCATIONS;
  return (
    `#!/bin/bash
# Prepares containerd's configuration; containerd.service requires containerd-initializer.service.
set -o errexit
set -o nounset
set -o pipefail

readonly config_file=${q(at.configFile)}
readonly registry_hosts_dir=${q(at.registryHostsDir)}
readonly imports_dir=${q(at.importsDir)}
readonly runtime_bin_dir=${q(input.runtimeBinDir)}
readonly env_drop_in=${q(at.envDropIn)}

# Values for the awk programs below go through the environment: awk -v would interpret backslashes.
export PAUSE_IMAGE=${q(input.pauseImage)}
export REGISTRY_TABLE=${q(REGISTRY_TABLE)}
export REGISTRY_HOSTS_DIR="$registry_hosts_dir"
export IMPORTS_GLOB="$imports_dir/*.toml"
` +
    String.raw`
# Runs a filter over config.toml and renames its output into place, keeping the file's mode.
rewrite_config() {
  local tmp
  tmp="$(mktemp "$config_file.XXXXXX")"
  if ! "$@" <"$config_file" >"$tmp"; then
    rm -f "$tmp"
    return 1
  fi
  chmod --reference="$config_file" "$tmp"
  mv -f "$tmp" "$config_file"
}

# Every sandbox_image setting names Gardener's pause image (indentation kept).
set_sandbox_image() {
  awk '
    /^[ \t]*sandbox_image[ \t]*=/ {
      indent = $0
      sub(/[^ \t].*$/, "", indent)
      print indent "sandbox_image = \"" ENVIRON["PAUSE_IMAGE"] "\""
      next
    }
    { print }
  '
}

# containerd reads registry hosts from hosts.toml files below config_path. A registry table this
# script adds is marked "# gardener-managed"; one the OS image or a user configured is only taken
# over while its config_path is empty, otherwise it is left as it is.
configure_registry_hosts_dir() {
  awk '
    function table_name(line) {
      sub(/#.*$/, "", line)
      gsub(/[ \t]/, "", line)
      return line
    }
    { lines[NR] = $0 }
    /^[ \t]*\[/ {
      table = table_name($0)
      if (table == ENVIRON["REGISTRY_TABLE"]) header = NR
      next
    }
    table == ENVIRON["REGISTRY_TABLE"] && /^[ \t]*config_path[ \t]*=[ \t]*""[ \t]*(#.*)?$/ { empty_path = NR }
    END {
      marker = " # gardener-managed"
      setting = "config_path = \"" ENVIRON["REGISTRY_HOSTS_DIR"] "\""
      for (i = 1; i <= NR; i++) {
        line = lines[i]
        if (i == header && empty_path && index(line, marker) == 0) {
          sub(/[ \t]+$/, "", line)
          print line marker
        } else if (i == empty_path) {
          indent = line
          sub(/[^ \t].*$/, "", indent)
          print indent setting
        } else print line
      }
      if (!header) {
        print ENVIRON["REGISTRY_TABLE"] marker
        print "  " setting
      }
    }
  '
}

# Drop-in files in conf.d (e.g. from extensions) are read through "imports", which containerd only
# honours at the top of the file: a missing directive becomes the first line, an existing
# single-line one gets the glob appended.
add_imports() {
  awk '
    function quoted(s) { return "\"" s "\"" }
    !seen && /^imports[ \t]*=/ {
      seen = 1
      glob = quoted(ENVIRON["IMPORTS_GLOB"])
      if (index($0, glob) == 0) {
        if (match($0, /\[.*\]/)) {
          inner = substr($0, RSTART + 1, RLENGTH - 2)
          gsub(/^[ \t]+|[ \t]+$/, "", inner)
          $0 = substr($0, 1, RSTART - 1) "[" inner (inner == "" ? "" : ", ") glob "]" substr($0, RSTART + RLENGTH)
        } else {
          print "init-containerd: cannot extend a multi-line imports directive, add " glob " yourself" > "/dev/stderr"
        }
      }
    }
    { lines[NR] = $0 }
    END {
      if (!seen) print "imports = [" quoted(ENVIRON["IMPORTS_GLOB"]) "]"
      for (i = 1; i <= NR; i++) print lines[i]
    }
  '
}

if [[ ! -s "$config_file" ]]; then
  mkdir -p "$(dirname "$config_file")"
  containerd config default >"$config_file.default"
  mv -f "$config_file.default" "$config_file"
fi

if grep -Eq '^[[:space:]]*sandbox_image[[:space:]]*=' "$config_file"; then
  rewrite_config set_sandbox_image
else
  echo "init-containerd: $config_file has no sandbox_image setting, the pause image is not set" >&2
fi

mkdir -p "$registry_hosts_dir"
rewrite_config configure_registry_hosts_dir

mkdir -p "$imports_dir"
rewrite_config add_imports

mkdir -p "$runtime_bin_dir"
if [[ ! -f "$env_drop_in" ]]; then
  mkdir -p "$(dirname "$env_drop_in")"
  printf '[Service]\nEnvironment="PATH=%s:%s"\n' "$runtime_bin_dir" "$PATH" >"$env_drop_in.tmp"
  mv -f "$env_drop_in.tmp" "$env_drop_in"
  systemctl daemon-reload
fi
`
  );
}
