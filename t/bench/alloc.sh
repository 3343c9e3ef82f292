#!/usr/bin/env bash
# `vsm alloc` against the bare qemu-img command it runs, side by side in one run: a 100 GiB qcow2
# with each preallocation mode and a 100 GiB raw with falloc (full writes every byte: it is timed
# at a smaller size, given as the second argument). vsm's overhead = vsm - bare (medians).
#   t/bench/alloc.sh [rounds] [full-size]
# Runs on a sparse loop-mounted ext4 (root), so falloc'ed gigabytes cost no real disk space.
# Writes t/bench/results/alloc.md.
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
rounds=${1:-5}
full=${2:-4G}
need qemu-img qemu-utils
out="$root/t/bench/results"; mkdir -p "$out"
[[ $(id -u) -eq 0 ]] || { echo "alloc.sh: needs root (a loop-mounted file system)" >&2; exit 1; }

sandbox /var/tmp/vsm-bench-alloc
loop_ext4 "$sb" 1T
vsm_sandbox "$sb"
store="$sb/mnt/store"
"$vsm" add dir st --path "$store" --content images >/dev/null
"$vsm" status >/dev/null
mkdir -p "$store/images/100" "$store/images/900"

# case NAME FORMAT MODE SIZE ROUND: one round of vsm and bare for this case; prints "NAME vsm|bare seconds".
# The side that goes first alternates by round, and each timed command starts after a sync, so
# neither side pays for the other's (or the previous case's) dirty pages being written back.
case_run() {
  local name=$1 format=$2 mode=$3 size=$4 round=$5 kib
  kib=$(( $(numfmt --from=iec "$size") / 1024 ))
  run_vsm() {
    sync; echo "$name vsm $(timed "$vsm" alloc st 100 vm-100-disk-0.$format "$size" --format "$format" --preallocation "$mode")"
    "$vsm" free "st:100/vm-100-disk-0.$format" >/dev/null
  }
  run_bare() {
    sync; echo "$name bare $(timed qemu-img create -o preallocation="$mode" -f "$format" "$store/images/900/x.$format" "${kib}K")"
    rm -f "$store/images/900/x.$format"
  }
  if ((round % 2)); then run_vsm; run_bare; else run_bare; run_vsm; fi
}
cases=("qcow2-off qcow2 off 100G" "qcow2-metadata qcow2 metadata 100G" "qcow2-falloc qcow2 falloc 100G"
       "qcow2-full qcow2 full $full" "raw-falloc raw falloc 100G")
for c in "${cases[@]}"; do   # what vsm runs is what the bare side runs
  read -r name format mode size <<<"$c"
  echo "$name: vsm runs $("$vsm" alloc --dry-run st 100 vm-100-disk-0.$format "$size" --format "$format" --preallocation "$mode" | grep 'qemu-img create')" >&2
done
for ((r = 1; r <= rounds; r++)); do
  echo "round $r of $rounds" >&2
  for c in "${cases[@]}"; do case_run $c "$r"; done >> "$sb/runs"
done
med() { awk -v c="$1" -v s="$2" '$1 == c && $2 == s {print $3}' "$sb/runs" | median; }
{
  echo "\`vsm alloc\` against the bare \`qemu-img create\` it runs, medians of $rounds runs (sparse loop-mounted ext4); load average $(cut -d' ' -f1 /proc/loadavg) at the end."
  echo
  echo "| image | vsm | bare qemu-img | vsm overhead |"
  echo "|---|---|---|---|"
  for c in "${cases[@]}"; do
    read -r name format mode size <<<"$c"
    v=$(med "$name" vsm); b=$(med "$name" bare)
    printf '| %s %s, preallocation=%s | %.3f s | %.3f s | %.3f s |\n' "$size" "$format" "$mode" "$v" "$b" "$(echo "$v - $b" | bc -l)"
  done
} | tee "$out/alloc.md"
