#!/usr/bin/env bash
# vsm against Proxmox's own pvesm, side by side on the same dir storage: each round runs every
# command on both, the side that goes first alternating by round (alloc and its free: vsm's
# pair first, then pvesm's), and prints per command the
# median wall time, its range, the ratio vsm/pvesm (medians) and the load average.
#   PVESM=/path/to/pvesm t/bench/vs-pvesm.sh [rounds] [list-rounds] [images]
# PVESM is the reference pvesm (a pve-storage run outside Proxmox VE: it reads its storage.cfg
# from $PVESM_CFG and writes below $PVESM_ROOT, both set here). Commands: status, path, info
# (pvesm has none: its nearest, `pvesm list STORE --vmid 100`, one image), alloc of a fresh
# 1 GiB qcow2, free of it, and the list of the storage with `images` qcow2 images (2,000 by
# default; list-rounds rounds, 21 by default). Writes t/bench/results/vs-pvesm.md.
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
rounds=${1:-21}
list_rounds=${2:-21}
images=${3:-2000}
: "${PVESM:?names the reference: the pvesm command of Proxmox VE, runnable on this host}"
[[ -x $PVESM ]] || { echo "vs-pvesm.sh: PVESM=$PVESM is not executable" >&2; exit 1; }
need qemu-img qemu-utils
out="$root/t/bench/results"; mkdir -p "$out"

sandbox /var/tmp/vsm-bench-pvesm
store="$sb/store"
mkdir -p "$store/images" "$sb/varlibvz"
vsm_sandbox "$sb"
# the same two dir storages on both sides: pvesm always has `local` (at $PVESM_VARLIBVZ here)
printf 'storages:\n  local:\n    type: dir\n    path: %s\n    content: [images, rootdir, iso, vztmpl, backup, snippets]\n  store:\n    type: dir\n    path: %s\n    content: [images, iso, backup]\n' \
  "$sb/varlibvz" "$store" >"$VSM_CONFIG"
export PVESM_ROOT="$sb/pve" PVESM_VARLIBVZ="$sb/varlibvz"
export PVESM_CFG="$PVESM_ROOT/storage.cfg"
mkdir -p "$PVESM_ROOT"
printf 'dir: store\n\tpath %s\n\tcontent images,iso,backup\n' "$store" >"$PVESM_CFG"
"$vsm" status >/dev/null
"$PVESM" status >/dev/null

# the images: one in VM 100 (path, info), $images in VMs 1000 and up (100 each) for the listing,
# copies of one qcow2 (a listing reads each one's header)
"$vsm" alloc store 100 vm-100-disk-0.qcow2 1G --format qcow2 >/dev/null
qemu-img create -q -f qcow2 "$sb/one.qcow2" 1G
for ((i = 0; i < images; i++)); do
  vmid=$((1000 + i / 100))
  mkdir -p "$store/images/$vmid"
  cp "$sb/one.qcow2" "$store/images/$vmid/vm-$vmid-disk-$((i % 100)).qcow2"
done
# both sides list the same images
diff <("$vsm" list store | awk 'NR > 1 {print $1, $NF}') <("$PVESM" list store | awk 'NR > 1 {print $1, $NF}') >&2 ||
  { echo "vs-pvesm.sh: vsm and pvesm list different images" >&2; exit 1; }

vol=store:100/vm-100-disk-0.qcow2
# name|vsm's arguments|pvesm's arguments
cases=("status|status|status"
       "path|path $vol|path $vol"
       "info (pvesm: list --vmid 100)|info $vol|list store --vmid 100")
# one timed run: prints "NAME SIDE SECONDS"
# shellcheck disable=SC2086 # the arguments are words
run() { echo "$1 $2 $(timed $3 $4)"; }
for ((r = 1; r <= rounds; r++)); do
  ((r % 5)) || echo "round $r of $rounds" >&2
  for c in "${!cases[@]}"; do
    IFS='|' read -r _ v p <<<"${cases[$c]}"
    if ((r % 2)); then run "$c" vsm "$vsm" "$v"; run "$c" pvesm "$PVESM" "$p"
    else run "$c" pvesm "$PVESM" "$p"; run "$c" vsm "$vsm" "$v"; fi
  done
  # alloc of a fresh name (VM 300, the next free disk), then its free
  for side in vsm pvesm; do
    [[ $side == vsm ]] && cmd=$vsm || cmd=$PVESM
    if [[ $side == pvesm ]]; then fmt=-format; else fmt=--format; fi
    echo "alloc $side $(timed "$cmd" alloc store 300 vm-300-disk-$r.qcow2 1G $fmt qcow2)"
    echo "free $side $(timed "$cmd" free store:300/vm-300-disk-$r.qcow2)"
  done
done >"$sb/runs"
for ((r = 1; r <= list_rounds; r++)); do
  echo "list round $r of $list_rounds" >&2
  if ((r % 2)); then run list vsm "$vsm" "list store"; run list pvesm "$PVESM" "list store"
  else run list pvesm "$PVESM" "list store"; run list vsm "$vsm" "list store"; fi
done >>"$sb/runs"
med() { awk -v c="$1" -v s="$2" '$1 == c && $2 == s {print $3}' "$sb/runs" | median; }
spread() { awk -v c="$1" -v s="$2" '$1 == c && $2 == s {print $3}' "$sb/runs" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.3f–%.3f", lo, hi}'; }
{
  echo "vsm against Proxmox's pvesm, medians (and ranges) of wall time, $rounds interleaved rounds ($list_rounds for the listing); $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(date -u +%Y-%m-%d)."
  echo
  echo "| command | vsm | pvesm | vsm/pvesm |"
  echo "|---|---|---|---|"
  row() { # key label
    local v p
    v=$(med "$1" vsm); p=$(med "$1" pvesm)
    printf '| %s | %.3f s (%s) | %.3f s (%s) | %.2fx |\n' "$2" "$v" "$(spread "$1" vsm)" "$p" "$(spread "$1" pvesm)" "$(ratio "$v" "$p")"
  }
  for c in "${!cases[@]}"; do row "$c" "${cases[$c]%%|*}"; done
  row alloc "alloc 1 GiB qcow2, a fresh name"
  row free "free of it"
  row list "list of $images qcow2 images"
} | tee "$out/vs-pvesm.md"
