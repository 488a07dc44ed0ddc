#!/usr/bin/env bash
# What `npm run bench` needs beside node_modules (run as its prebench): wrk, the C load generator the unpaid-402 rounds
# of `cluster_402` use (test/bench/wrk-load.ts; without it they fall back to a Node generator that takes more of the
# cores it shares with svc). Installed where missing when this runs as root with apt-get; otherwise it says so.
set -euo pipefail
command -v wrk >/dev/null && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "svc bench: installing wrk (apt-get)" >&2
  (apt-get install -y -qq wrk >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }) ||
    echo "svc bench: wrk could not be installed: cluster_402 uses its Node generator" >&2
else
  echo "svc bench: wrk is missing (Debian: sudo apt-get install -y wrk): cluster_402 uses its Node generator" >&2
fi
