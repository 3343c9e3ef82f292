#!/usr/bin/env bash
# Volume chains, measured on this machine (docs/volume-chains.md), each figure a ratio of two
# sides run interleaved in one run:
#   writes  4 KiB random writes (qemu-io aio_write, O_DIRECT, 32 in flight) to the top of a chain on a block
#           device: a loop device stands for the LV, the layer below is a fully written qcow2 on
#           another one. vsm's overlay (the qemu-img options `vsm snapshot` gives a new top,
#           read from its dry run) against an overlay made with qemu-img's defaults, and against
#           the same writes to the raw device.
#   reads   4 KiB random reads (32 in flight) through a chain 10 layers deep (each layer holding a tenth of
#           the data), every layer opened with the L2 cache `vsm info` advises, against the same
#           reads from that chain flattened into one image with the same options.
#   commit  `vsm snapshot-delete` of the oldest snapshot (a commit of its child into it) after
#           64 MiB of writes spread over a 64 GiB disk, against the same on a 1 GiB disk.
#   t/bench/chains.sh [rounds] [ops]
# As root (loop devices). Writes t/bench/results/chains.md.
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
rounds=${1:-5}
ops=${2:-8192}
[[ $(id -u) -eq 0 ]] || { echo "$(basename "$0"): needs root (loop devices)" >&2; exit 1; }
need qemu-img qemu-utils
need qemu-io qemu-utils
out="$root/t/bench/results"; mkdir -p "$out"

sandbox /var/tmp/vsm-bench-chains
direct_io_dir "$sb" 24G
vsm_sandbox "$sb"
"$vsm" add dir chain --path "$work/store" --content images --snapshot-as-volume-chain 1 >/dev/null
mkdir -p "$work/store"

# The options vsm gives a new top layer, from a dry run of a snapshot.
"$vsm" alloc chain 100 vm-100-disk-0.qcow2 1G --format qcow2 >/dev/null
vsm_opts=$("$vsm" snapshot --dry-run chain:100/vm-100-disk-0.qcow2 s1 | sed -n 's/^+ .*qemu-img create .* -o \([^ ]*\).*/\1/p')
[[ -n $vsm_opts ]] || { echo "$(basename "$0"): cannot read the overlay's options from vsm snapshot --dry-run" >&2; exit 1; }
"$vsm" free chain:100/vm-100-disk-0.qcow2 >/dev/null
echo "vsm's overlay options: $vsm_opts" >&2

# loop FILE SIZE: sets $dev to a new loop device (direct I/O) on a new dense FILE of SIZE bytes
loop() {
  fallocate -l "$2" "$1"
  dev=$(losetup --direct-io=on --show -f "$1")
  at_exit "losetup -d '$dev'"
}

# offsets COUNT SPAN SEED [GRAIN]: COUNT distinct GRAIN-aligned (4 KiB) random offsets below SPAN
offsets() {
  awk -v n="$1" -v span="$2" -v seed="$3" -v grain="${4:-4096}" 'BEGIN {
    srand(seed); slots = int(span / grain)
    while (c < n) { s = int(rand() * slots); if (!(s in seen)) { seen[s] = 1; printf "%d\n", s * grain; c++ } } }'
}

# iops FORMAT-OR-OPTS IMAGE CMDFILE: runs qemu-io's commands from CMDFILE on IMAGE with O_DIRECT;
# prints the operations per second (the command's wall time, qemu-io's start included)
iops() {
  local t0 t1 n
  n=$(grep -c '^aio_[rw]' "$3")
  t0=$(now)
  if [[ $1 == --image-opts ]]; then
    qemu-io --image-opts "$2" <"$3" >/dev/null
  else
    qemu-io -f "$1" -t none -i native "$2" <"$3" >/dev/null
  fi
  t1=$(now)
  echo "$n / ($t1 - $t0)" | bc -l
}

runs="$sb/runs"

# --- writes: a 2 GiB disk ------------------------------------------------------------------------
disk=$((2 << 30))
need_bytes=$(qemu-img measure -O qcow2 -o "$vsm_opts" --size "$disk" | sed -n 's/^fully allocated size: //p')
loop "$work/lower.img" "$need_bytes"; lower=$dev
loop "$work/top.img" "$need_bytes"; top=$dev
loop "$work/raw.img" "$disk"; raw=$dev
qemu-img create -q -f qcow2 -o "$vsm_opts" "$lower" "$disk"
qemu-img bench -q -w -t none -i native -d 8 -s 1M -S 1M -c $((disk >> 20)) --pattern=0x5a -f qcow2 "$lower"
qemu-img bench -q -w -t none -i native -d 8 -s 1M -S 1M -c $((disk >> 20)) --pattern=0x5a -f raw "$raw"
writes="$sb/writes"
# 32 requests in flight at a time (a guest's queue), as a batch of 32 ended by a flush
in_flight() { awk '{print} NR % 32 == 0 {print "aio_flush"} END {print "aio_flush"}'; }
offsets "$ops" "$disk" 7 | awk '{print "aio_write -P 0x33 " $1 " 4k"}' | in_flight >"$writes"

overlay() { # OPTIONS...: a new overlay on the top device over the lower one
  qemu-img create -q -f qcow2 -F qcow2 -b "$lower" "$@" "$top" "$disk"
}
for ((r = 1; r <= rounds; r++)); do
  echo "writes: round $r of $rounds" >&2
  # the side that goes first alternates
  if ((r % 2)); then order=(default vsm raw); else order=(raw vsm default); fi
  for side in "${order[@]}"; do
    case $side in
      default) overlay; echo "writes-default $(iops qcow2 "$top" "$writes")" ;;
      vsm) overlay -o "$vsm_opts"; echo "writes-vsm $(iops qcow2 "$top" "$writes")" ;;
      raw) echo "writes-raw $(iops raw "$raw" "$writes")" ;;
    esac
  done >>"$runs"
done

# --- reads: a chain of 10 layers on a 1 GiB disk, through vsm ------------------------------------
rdisk=$((1 << 30))
"$vsm" alloc chain 200 vm-200-disk-0.qcow2 "$((rdisk >> 20))M" --format qcow2 >/dev/null
img="$work/store/images/200/vm-200-disk-0.qcow2"
offsets $((rdisk / 4096 / 4)) "$rdisk" 11 >"$sb/all-offsets"
layers=10
for ((l = 1; l <= layers; l++)); do
  # a tenth of the data in each layer, then a snapshot freezes it (the tenth stays in current)
  awk -v l="$l" -v n="$layers" 'NR % n == l % n {print "aio_write -P " l " " $1 " 4k"} END {print "aio_flush"}' \
    "$sb/all-offsets" | qemu-io -f qcow2 -t none "$img" >/dev/null
  if ((l < layers)); then "$vsm" snapshot chain:200/vm-200-disk-0.qcow2 "s$l" >/dev/null; fi
done
l2=$("$vsm" info chain:200/vm-200-disk-0.qcow2 | sed -n 's/^l2-cache-size: //p')
chain_opts="driver=qcow2,file.driver=file,file.filename=$img,file.aio=native,file.cache.direct=on,l2-cache-size=$l2"
prefix=""
for ((l = 1; l < layers; l++)); do
  prefix+="backing."
  chain_opts+=",${prefix}l2-cache-size=$l2,${prefix}file.aio=native,${prefix}file.cache.direct=on"
done
flat="$work/flat.qcow2"
qemu-img convert -f qcow2 -O qcow2 -o "$vsm_opts" "$img" "$flat"
flat_opts="driver=qcow2,file.driver=file,file.filename=$flat,file.aio=native,file.cache.direct=on,l2-cache-size=$l2"
reads="$sb/reads"
shuf --random-source=<(yes) -n "$ops" "$sb/all-offsets" | awk '{print "aio_read " $1 " 4k"}' | in_flight >"$reads"
depth=$(qemu-img info --backing-chain "$img" | grep -c '^image:')
for ((r = 1; r <= rounds; r++)); do
  echo "reads: round $r of $rounds" >&2
  if ((r % 2)); then order=(chain flat); else order=(flat chain); fi
  for side in "${order[@]}"; do
    case $side in
      chain) echo "reads-chain $(iops --image-opts "$chain_opts" "$reads")" ;;
      flat) echo "reads-flat $(iops --image-opts "$flat_opts" "$reads")" ;;
    esac
  done >>"$runs"
done

# --- commit: delete the oldest snapshot after 64 MiB of writes, on 1 GiB and on 64 GiB -----------
commit_writes="$sb/commit-writes"
for size in 1 64; do
  offsets 512 $((size << 30)) 13 $((128 << 10)) | awk '{print "aio_write -P 0x44 " $1 " 128k"} END {print "aio_flush"}' \
    >"$commit_writes.$size"
done
for ((r = 1; r <= rounds; r++)); do
  echo "commit: round $r of $rounds" >&2
  if ((r % 2)); then order=(1 64); else order=(64 1); fi
  for size in "${order[@]}"; do
    vmid=$((300 + size))
    "$vsm" alloc chain "$vmid" "vm-$vmid-disk-0.qcow2" "${size}G" --format qcow2 >/dev/null
    "$vsm" snapshot "chain:$vmid/vm-$vmid-disk-0.qcow2" old >/dev/null
    qemu-io -f qcow2 -t none "$work/store/images/$vmid/vm-$vmid-disk-0.qcow2" <"$commit_writes.$size" >/dev/null
    echo "commit-${size}g $(timed "$vsm" snapshot-delete "chain:$vmid/vm-$vmid-disk-0.qcow2" old)"
    "$vsm" free "chain:$vmid/vm-$vmid-disk-0.qcow2" >/dev/null
  done >>"$runs"
done

# med KEY: "median (min–max)" of KEY's runs
med() { awk -v k="$1" '$1 == k {print $2}' "$runs" | median; }
range() { awk -v k="$1" '$1 == k {print $2}' "$runs" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.0f–%.0f", lo, hi}'; }
range_s() { awk -v k="$1" '$1 == k {print $2}' "$runs" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.3f–%.3f", lo, hi}'; }
{
  echo "Volume chains, medians of $rounds interleaved rounds, $ops operations a run (qemu $(qemu-img --version | sed -n '1s/.*version \([^ ]*\).*/\1/p'), $(nproc) cores, $(date -u +%F)); load average $(cut -d' ' -f1-3 /proc/loadavg) at the end. vsm's overlay: \`$vsm_opts\`."
  echo
  echo "| measurement | IOPS (range) | ratio | target |"
  echo "|---|---|---|---|"
  printf '| 4 KiB random writes, overlay with qemu-img defaults, on a loop device | %.0f (%s) | | |\n' "$(med writes-default)" "$(range writes-default)"
  printf '| the same, vsm'"'"'s overlay | %.0f (%s) | %.1fx the defaults | ≥ 8x |\n' "$(med writes-vsm)" "$(range writes-vsm)" "$(ratio "$(med writes-vsm)" "$(med writes-default)")"
  printf '| the same writes to the raw loop device | %.0f (%s) | vsm %.2f of raw | ≥ 0.8 |\n' "$(med writes-raw)" "$(range writes-raw)" "$(ratio "$(med writes-vsm)" "$(med writes-raw)")"
  printf '| (the ceiling: raw against the defaults) | | %.1fx | |\n' "$(ratio "$(med writes-raw)" "$(med writes-default)")"
  printf '| 4 KiB random reads through %d layers, L2 cache as `vsm info` advises | %.0f (%s) | %.2f of one layer | ≥ 0.8 |\n' "$depth" "$(med reads-chain)" "$(range reads-chain)" "$(ratio "$(med reads-chain)" "$(med reads-flat)")"
  printf '| the same reads, the chain flattened into one image | %.0f (%s) | | |\n' "$(med reads-flat)" "$(range reads-flat)"
  echo
  echo "| \`vsm snapshot-delete\` of the oldest snapshot, 64 MiB written in its child | seconds (range) | ratio | target |"
  echo "|---|---|---|---|"
  printf '| 1 GiB disk | %.3f (%s) | | |\n' "$(med commit-1g)" "$(range_s commit-1g)"
  printf '| 64 GiB disk | %.3f (%s) | %.2fx the 1 GiB disk | ≤ 2x |\n' "$(med commit-64g)" "$(range_s commit-64g)" "$(ratio "$(med commit-64g)" "$(med commit-1g)")"
} | tee "$out/chains.md"
