#!/usr/bin/env bash
# Snapshots on thick LVM with snapshot-as-volume-chain (docs/volume-chains.md): the VG bytes in
# use after each of five snapshots of a disk with data written before each, pve's rule (every LV
# of the chain the disk's full qemu-img measure) against vsm's shrink-snapshot-lvs (a frozen
# layer's LV shrunk to its image's end). It needs device-mapper, so it runs
# LvmChainTest#fiveSnapshotsReserveWhatWasWrittenWithTheOption in the qemu guest, at this scale,
# on the test's sparse 72 GiB disk (1 MiB extents); qemu-img bench writes the data.
#   t/bench/snapshot-lvs.sh [disk GiB, default 10] [GiB written before each snapshot, default 1]
# The disk at most 11 GiB (pve's rule reserves six times it). Writes t/bench/results/snapshot-lvs.md.
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
disk=${1:-10}
written=${2:-1}
out="$root/t/bench/results"; mkdir -p "$out"
log=$(mktemp); at_exit "rm -f '$log'"
load=$(cut -d' ' -f1-3 /proc/loadavg)
(cd "$root" && mvn -B verify -pl t -am -Dspotbugs.skip=true -Dsurefire.failIfNoSpecifiedTests=false \
  -Dtest='LvmChainTest#fiveSnapshotsReserveWhatWasWrittenWithTheOption' -Dvsm.test.excludedGroups= \
  -Dvsm.snapshot-lvs.disk-mib=$((disk * 1024)) -Dvsm.snapshot-lvs.written-mib=$((written * 1024))) >"$log" 2>&1 ||
  { tail -40 "$log" >&2; exit 1; }
rows=$(sed -n 's/.*snapshot-lvs: \([0-9]\+\) | \([0-9]\+\) | \([0-9]\+\)$/\1 \2 \3/p' "$log")
[[ -n $rows ]] || { echo "$(basename "$0"): the guest printed no figures" >&2; tail -40 "$log" >&2; exit 1; }
gib() { echo "scale=2; $1 / 1073741824" | bc -l; }
{
  echo "# Snapshot LVs: VG bytes reserved ($(date -u +%F), load $load)"
  echo
  echo "A $disk GiB qcow2 disk on thick LVM, $written GiB written before each snapshot, 1 MiB extents."
  echo
  echo "| snapshots | pve's rule | shrink-snapshot-lvs | ratio |"
  echo "|---|---|---|---|"
  while read -r n pve vsm; do
    echo "| $n | $pve ($(gib "$pve") GiB) | $vsm ($(gib "$vsm") GiB) | $(ratio "$vsm" "$pve" | sed 's/^\./0./') |"
  done <<<"$rows"
} | tee "$out/snapshot-lvs.md"
