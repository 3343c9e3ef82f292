#!/usr/bin/env bash
# `vsm alloc` against the bare qemu-img command it runs, side by side in one run: a 100 GiB qcow2
# with each preallocation mode and a 100 GiB raw with falloc (full writes every byte: it is timed
# at a smaller size, given as the second argument); and `vsm clone` of a 100 GiB qcow2 base
# against its bare qemu-img create of the overlay. vsm's overhead = vsm - bare (medians). For
# qcow2 off and the clone also the floor (StatusFloor exec, lib.sh's status_floor).
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
mkdir -p "$store/images/100"

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
  # the bare image goes to the same directory as vsm's: ext4 places each directory's files in its
  # own block groups, and on the sparse loop file a group never written before costs the host an
  # allocation per block (a 4G full preallocation ran 2-5x slower in another directory)
  run_bare() {
    mkdir -p "$store/images/100"
    sync; echo "$name bare $(timed qemu-img create -o preallocation="$mode" -f "$format" "$store/images/100/x.$format" "${kib}K")"
    rm -f "$store/images/100/x.$format"
  }
  # the floor (StatusFloor exec: vsm's libraries, its plugins found, then the bare command) for
  # the case with the least disk time, where the start-up is most of the overhead
  # shellcheck disable=SC2086 # $floor is a command line: its words
  run_floor() {
    sync; echo "$name floor $(timed $floor exec --config "$VSM_CONFIG" --sync "$store/images/100/x.$format" -- \
      qemu-img create -o preallocation="$mode" \
      -f "$format" "$store/images/100/x.$format" "${kib}K")"
    rm -f "$store/images/100/x.$format"
  }
  if [[ $name != qcow2-off ]]; then
    if ((round % 2)); then run_vsm; run_bare; else run_bare; run_vsm; fi
  else
    case $((round % 3)) in
      0) run_vsm; run_bare; run_floor ;;
      1) run_bare; run_floor; run_vsm ;;
      2) run_floor; run_vsm; run_bare ;;
    esac
  fi
}
# clone NAME ROUND: one round of vsm clone of the base and of the bare qemu-img command it runs
clone_run() {
  local name=$1 round=$2
  run_vsm() {
    sync; echo "$name vsm $(timed "$vsm" clone st:100/base-100-disk-9.qcow2 101)"
    "$vsm" free st:100/base-100-disk-9.qcow2/101/vm-101-disk-0.qcow2 >/dev/null
  }
  run_bare() {
    mkdir -p "$store/images/101"
    sync; echo "$name bare $(cd "$store/images/101" && timed qemu-img create -F qcow2 -b ../100/base-100-disk-9.qcow2 \
      -f qcow2 "$store/images/101/x.qcow2" -o extended_l2=on,cluster_size=128k,preallocation=metadata)"
    rm -f "$store/images/101/x.qcow2"
  }
  # shellcheck disable=SC2086 # $floor is a command line: its words
  run_floor() {
    mkdir -p "$store/images/101"
    sync; echo "$name floor $(cd "$store/images/101" && timed $floor exec --config "$VSM_CONFIG" --sync "$store/images/101/x.qcow2" -- \
      qemu-img create -F qcow2 -b ../100/base-100-disk-9.qcow2 -f qcow2 "$store/images/101/x.qcow2" \
      -o extended_l2=on,cluster_size=128k,preallocation=metadata)"
    rm -f "$store/images/101/x.qcow2"
  }
  case $((round % 3)) in
    0) run_vsm; run_bare; run_floor ;;
    1) run_bare; run_floor; run_vsm ;;
    2) run_floor; run_vsm; run_bare ;;
  esac
}
status_floor "$sb/floor" "exec --config $VSM_CONFIG -- qemu-img create -f qcow2 $sb/floor/train.qcow2 1G"
"$vsm" alloc st 100 vm-100-disk-9.qcow2 100G --format qcow2 >/dev/null
"$vsm" create-base st:100/vm-100-disk-9.qcow2 >/dev/null
echo "clone: vsm runs $("$vsm" clone --dry-run st:100/base-100-disk-9.qcow2 101 | grep 'qemu-img create')" >&2
cases=("qcow2-off qcow2 off 100G" "qcow2-metadata qcow2 metadata 100G" "qcow2-falloc qcow2 falloc 100G"
       "qcow2-full qcow2 full $full" "raw-falloc raw falloc 100G")
for c in "${cases[@]}"; do   # what vsm runs is what the bare side runs
  read -r name format mode size <<<"$c"
  echo "$name: vsm runs $("$vsm" alloc --dry-run st 100 vm-100-disk-0.$format "$size" --format "$format" --preallocation "$mode" | grep 'qemu-img create')" >&2
done
for ((r = 1; r <= rounds; r++)); do
  echo "round $r of $rounds" >&2
  for c in "${cases[@]}"; do case_run $c "$r"; done >> "$sb/runs"
  clone_run clone "$r" >> "$sb/runs"
done
med() { awk -v c="$1" -v s="$2" '$1 == c && $2 == s {print $3}' "$sb/runs" | median; }
spread() { awk -v c="$1" -v s="$2" '$1 == c && $2 == s {print $3}' "$sb/runs" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.2f–%.2f", lo, hi}'; }
{
  echo "\`vsm alloc\` and \`vsm clone\` against the bare \`qemu-img create\` they run, medians (and ranges) of $rounds runs each, alternating which side goes first, on a sparse loop-mounted ext4; load average $(cut -d' ' -f1 /proc/loadavg) at the end."
  echo
  echo "The floor: StatusFloor exec (t/bench/StatusFloor.java), picocli, snakeyaml-engine and the plugins found by ServiceLoader, then the bare command as a child process, and the image and its directory synced; its overhead is what no command on vsm's libraries can do without."
  echo
  echo "| image | vsm | bare qemu-img | vsm overhead | floor | floor overhead |"
  echo "|---|---|---|---|---|---|"
  row() { # name label
    local v b f
    v=$(med "$1" vsm); b=$(med "$1" bare); f=$(med "$1" floor)
    printf '| %s | %.3f s (%s) | %.3f s (%s) | %.3f s |' "$2" "$v" "$(spread "$1" vsm)" "$b" "$(spread "$1" bare)" "$(echo "$v - $b" | bc -l)"
    if [[ $f != nan ]]; then printf ' %.3f s (%s) | %.3f s |\n' "$f" "$(spread "$1" floor)" "$(echo "$f - $b" | bc -l)"; else echo ' | |'; fi
  }
  for c in "${cases[@]}"; do
    read -r name format mode size <<<"$c"
    row "$name" "$size $format, preallocation=$mode"
  done
  row clone "linked clone of a 100G qcow2 base"
} | tee "$out/alloc.md"
