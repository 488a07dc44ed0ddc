#!/usr/bin/env bash
# What `npm test` needs beside node_modules (run as its pretest): Debian's Chromium for the browser tests
# (test/browser) and PostgreSQL 15's binaries for the tests on svc's second database (test/helpers/postgres.ts starts
# throwaway servers from them, without the package's own cluster). Installed where missing when this runs as root
# with apt-get (CI, a fresh container); otherwise it says what to install, and the tests that need them say so too.
set -euo pipefail
missing=()
command -v chromium >/dev/null || missing+=(chromium)
[ -x /usr/lib/postgresql/15/bin/initdb ] || missing+=(postgresql-15)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  mkdir -p /etc/postgresql-common
  [ -e /etc/postgresql-common/createcluster.conf ] || echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.conf
  echo "svc tests: installing ${missing[*]} (apt-get, about 2 minutes)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "svc tests: ${missing[*]} missing: the browser/PostgreSQL tests fail without them (Debian: sudo apt-get install -y ${missing[*]})" >&2
fi
