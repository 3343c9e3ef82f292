#!/usr/bin/env bash
# `vsm serve` (pve's storage API) measured, in one run:
# 1. the listing: GET .../storage/many/content of N qcow2 images (half of them linked clones, as
#    listing.sh makes them) by curl (a new TLS connection each time, as a script's client) against
#    `vsm list many --output-format json` of the same storage, interleaved; target: the API at most
#    1.5x the command. Checks first that both list the same volumes.
# 2. the load: ApiLoad (next to this script, run as `java ApiLoad.java`) with CLIENTS concurrent
#    clients for SECONDS (after 20 s of warm-up) listing, allocating and freeing on a second
#    storage: errors, lost volumes, latency percentiles per operation, the server's RSS and heap.
#   t/bench/api.sh [images] [rounds] [clients] [seconds]
# Writes t/bench/results/api.md.
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
n=${1:-2000}
rounds=${2:-11}
clients=${3:-50}
seconds=${4:-60}
need qemu-img qemu-utils
need curl curl
need jcmd openjdk-17-jdk-headless
out="$root/t/bench/results"; mkdir -p "$out"

sandbox /var/tmp/vsm-bench-api
vsm_sandbox "$sb"
store="$sb/store"
"$vsm" add dir many --path "$store" --content images >/dev/null
"$vsm" add dir load --path "$sb/load" --content images >/dev/null
listing_images "$store" "$n"
count=$(find "$store/images" -name '*.qcow2' | wc -l)
echo "$count qcow2 images ($((n / 2)) linked clones) in $store" >&2

token=$("$vsm" token add root@pam bench --privsep 0 --output-format json | jq -r '."full-tokenid" + "=" + .value')
"$vsm" serve --listen 127.0.0.1:0 2>"$sb/serve.err" &
server=$!
at_exit "kill $server; wait $server"
for ((i = 0; i < 600; i++)); do
  port=$(sed -n 's|.*listening on https://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$sb/serve.err")
  [[ -n $port ]] && break
  kill -0 "$server" 2>/dev/null || { cat "$sb/serve.err" >&2; exit 1; }
  sleep 0.1
done
[[ -n $port ]] || { echo "api.sh: vsm serve did not listen within 60 s" >&2; exit 1; }
cert="$(dirname "$VSM_CONFIG")/ssl/vsm-ssl.pem"
node=$(curl -sf --cacert "$cert" -H "Authorization: PVEAPIToken=$token" \
  "https://127.0.0.1:$port/api2/json/nodes" | jq -r '.data[0].node')
url="https://127.0.0.1:$port/api2/json/nodes/$node/storage/many/content"
api_list() { curl -sf --cacert "$cert" -H "Authorization: PVEAPIToken=$token" "$url"; }

# the same volumes, the same fields (the API leaves out vsm's own `approximate`)
first=$(timed api_list)
"$vsm" list many --output-format json | jq -S '[.[] | del(.approximate)]' >"$sb/vsm.json"
api_list | jq -S '.data' >"$sb/api.json"
cmp -s "$sb/vsm.json" "$sb/api.json" && same=yes || { same=NO; diff "$sb/vsm.json" "$sb/api.json" | head -5 >&2 || true; }
echo "listings identical: $same ($(jq length "$sb/api.json") volumes); the server's first listing took $first s" >&2

: >"$sb/t.vsm"; : >"$sb/t.api"
for ((r = 0; r < rounds; r++)); do
  if ((r % 2)); then
    timed api_list >>"$sb/t.api"; timed "$vsm" list many --output-format json >>"$sb/t.vsm"
  else
    timed "$vsm" list many --output-format json >>"$sb/t.vsm"; timed api_list >>"$sb/t.api"
  fi
done
listing_load=$(cut -d' ' -f1-3 /proc/loadavg)
stats() { sort -g "$1" | awk '{a[NR]=$1} END {printf "%.3f s (%.3f–%.3f)", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[1], a[NR]}'; }
m_vsm=$(median <"$sb/t.vsm"); m_api=$(median <"$sb/t.api")

java "$root/t/bench/ApiLoad.java" "https://127.0.0.1:$port" "$cert" "$token" "$node" load \
  "$clients" "$seconds" 20 "$server" >"$sb/load.md" && load_ok=yes || load_ok=NO

{
  echo "# vsm serve"
  echo
  echo "$(date -u +%F), $(nproc) cores. The server: \`vsm serve\` as \`cli/vsm\` starts it (its JVM flags), one process for the whole run."
  echo
  echo "## Listing $count qcow2 images ($((n / 2)) linked clones)"
  echo
  echo "Medians (and ranges) of $rounds interleaved rounds; listings identical: $same; the server's first (cold) listing took $(printf %.3f "$first") s; load average $listing_load at the end."
  echo
  echo "| client | time | ratio to vsm list |"
  echo "|---|---|---|"
  echo "| \`vsm list many --output-format json\` | $(stats "$sb/t.vsm") | 1 |"
  printf '| curl GET .../storage/many/content (new TLS connection) | %s | %.2fx |\n' "$(stats "$sb/t.api")" "$(ratio "$m_api" "$m_vsm")"
  echo
  echo "## $clients clients for $seconds s"
  echo
  echo "Each client lists the storage \`load\`, allocates a 1 MiB qcow2 there or frees one it allocated, at random (at most 20 of its own at a time); all checks passed: $load_ok."
  echo
  cat "$sb/load.md"
} | tee "$out/api.md"
