#!/usr/bin/env bash
# Installs the object-store servers the object-store tests run deltafs against,
# into a project-local, cached directory (default: <checkout>/.cache/servers):
#
#   bin/versitygw                   S3 gateway (posix backend: serves a folder as buckets)   go install
#   bin/fake-gcs-server             Google Cloud Storage emulator                            go install
#   azurite/node_modules/.bin/      Azurite, the Azure Blob Storage emulator                 npm install
#
# Usage: install.sh [versitygw|fake-gcs-server|azurite ...]   (default: all three)
# A server whose pinned version is already installed is skipped, so reruns cost
# nothing. Each install is timed. Exit status is non-zero if any install failed;
# the others are still attempted.
#
# Called by `make servers` (and so by .ci/run) and, lazily, by the Go tests
# (tests/servers) when a binary is missing.
set -uo pipefail

VERSITYGW_VERSION=v1.8.0
FAKE_GCS_SERVER_VERSION=v1.56.1
AZURITE_VERSION=3.37.0

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${DELTAFS_SERVERS_DIR:-$root/.cache/servers}
mkdir -p "$dir/bin"
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
GO=${GO:-go}
NPM=${NPM:-npm}

# installed NAME VERSION: is this exact version installed (stamp file beside it)?
installed() { [ "$(cat "$dir/.$1.version" 2>/dev/null)" = "$2" ]; }

# timed NAME VERSION COMMAND...: run an install, report its time, write the stamp.
timed() {
  local name=$1 version=$2; shift 2
  if installed "$name" "$version"; then
    echo "servers: $name $version already installed in $dir"
    return 0
  fi
  local start=$(date +%s) rc
  echo "servers: installing $name $version ..."
  "$@"; rc=$?
  local took=$(( $(date +%s) - start ))
  if [ $rc -eq 0 ]; then
    echo "$version" >"$dir/.$name.version"
    echo "=== servers: $name $version installed in ${took}s"
  else
    echo "=== servers: $name $version FAILED after ${took}s (exit $rc)" >&2
  fi
  return $rc
}

install_go() {   # install_go PACKAGE@VERSION
  GOBIN="$dir/bin" GOFLAGS="${GOFLAGS:-} -trimpath" "$GO" install "$1"
}

install_azurite() {
  command -v "$NPM" >/dev/null || { echo "servers: npm not found (azurite needs Node.js >= 18 and npm)" >&2; return 1; }
  mkdir -p "$dir/azurite"
  # A private package.json keeps npm from walking up into the checkout.
  [ -f "$dir/azurite/package.json" ] || echo '{"name":"deltafs-test-servers","private":true}' >"$dir/azurite/package.json"
  (cd "$dir/azurite" && "$NPM" install --no-audit --no-fund --silent --save-exact "azurite@$AZURITE_VERSION") &&
    [ -x "$dir/azurite/node_modules/.bin/azurite-blob" ]
}

# One install at a time per directory (tests in several packages may call this).
exec 9>"$dir/.lock"
flock 9

want=("$@")
[ ${#want[@]} -eq 0 ] && want=(versitygw fake-gcs-server azurite)
t0=$(date +%s)
rc=0
azpid=""
for name in "${want[@]}"; do
  # npm waits on the network, go install on the CPU: overlap them.
  if [ "$name" = azurite ]; then
    timed azurite "$AZURITE_VERSION" install_azurite &
    azpid=$!
  fi
done
for name in "${want[@]}"; do
  case $name in
  versitygw)       timed versitygw "$VERSITYGW_VERSION" install_go "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" || rc=1 ;;
  fake-gcs-server) timed fake-gcs-server "$FAKE_GCS_SERVER_VERSION" install_go "github.com/fsouza/fake-gcs-server@$FAKE_GCS_SERVER_VERSION" || rc=1 ;;
  azurite)         ;;
  *) echo "servers: unknown server $name (want versitygw, fake-gcs-server or azurite)" >&2; rc=2 ;;
  esac
done
if [ -n "$azpid" ]; then wait "$azpid" || rc=1; fi
echo "=== servers: ready in $(( $(date +%s) - t0 ))s (exit $rc) in $dir"
exit $rc
