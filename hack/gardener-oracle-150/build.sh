#!/usr/bin/env bash
# Builds (once) the gardener-oracle-150: Gardener v1.150.0's own code as a JSON-lines oracle (see
# main.go, README.md). The build, its content-addressed cache
# (${XDG_CACHE_HOME:-~/.cache}/gardener-osc/gardener-oracle-150/gardener-v1.150.0-<hash>/), the lock
# and the environment variables are those of the v1.91.4 oracle's script, which this one runs on
# this directory. The LAST line on stdout is the cache dir.
#
#   dir="$(hack/gardener-oracle-150/build.sh | tail -n1)"; "$dir/gardener-oracle-150" < requests.jsonl
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ORACLE_SOURCE_DIR="${HERE}" ORACLE_NAME=gardener-oracle-150 exec bash "${HERE}/../gardener-oracle/build.sh"
