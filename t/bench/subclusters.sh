#!/usr/bin/env bash
# qcow2 subclusters, measured on this machine: 4 KiB writes that each land in a new cluster
# (qemu-img bench -w -t none -i native -d 32 -s 4k), for cluster sizes 16k ... 2M with and
# without extended_l2, on an overlay over a fully written raw backing file and on an image
# without backing file. Reports IOPS and host bytes allocated per guest byte (medians), then
# `vsm clone`'s overlay against an overlay made with qemu-img's defaults, side by side.
#   t/bench/subclusters.sh [writes-per-run] [rounds]
# Writes a table (t/bench/results/subclusters.md), its data (subclusters.tsv: cluster, then
# IOPS and host bytes per guest byte for backed off/on and plain off/on) and a chart
# (t/bench/results/subclusters.svg).
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
writes=${1:-2048}
rounds=${2:-3}
need qemu-img qemu-utils
need gnuplot gnuplot-nox
out="$root/t/bench/results"; mkdir -p "$out"

sandbox /var/tmp/vsm-bench-subclusters
# the step between writes: at least one cluster, so that every write lands in a new one
max_step=$((2 * 1024 * 1024))
direct_io_dir "$sb" $(((writes * max_step) * 2 + (1 << 30)))
vsm_sandbox "$sb"
store="$work/store"
mkdir -p "$store/images/100"
"$vsm" add dir bench --path "$store" --content images >/dev/null

# the backing file: raw, every byte written (so a copy-on-write really copies data)
base="$store/images/100/base-100-disk-0.raw"
qemu-img create -q -f raw "$base" $((writes * max_step))
qemu-img bench -q -w -t none -i native -d 8 -s 1M -S 1M -c $((writes * max_step / 1048576)) --pattern=0x5a -f raw "$base"
echo "backing file: $(du -h --apparent-size "$base" | cut -f1), $(du -h "$base" | cut -f1) allocated; $writes writes per run, $rounds rounds; in $work" >&2

# bench IMAGE STEP [FORMAT]: prints "iops host-bytes-per-guest-byte" for $writes 4 KiB writes STEP apart
bench() {
  local img=$1 step=$2 format=${3:-qcow2} before after secs
  before=$(allocated "$img")
  secs=$(qemu-img bench -w -t none -i native -d 32 -s 4k -S "$step" -c "$writes" -f "$format" "$img" |
    sed -n 's/^Run completed in \([0-9.]*\) seconds.*/\1/p')
  after=$(allocated "$img")
  echo "$(ratio "$writes" "$secs") $(ratio $((after - before)) $((writes * 4096)))"
}

# median_of "iops amp" lines on stdin: prints "median-iops median-amp"
median_of() { local f; f=$(mktemp -p "$sb"); cat >"$f"; echo "$(cut -d' ' -f1 "$f" | median) $(cut -d' ' -f2 "$f" | median)"; }

bytes() { numfmt --from=iec "${1^^}"; }
ov="$store/images/102"; mkdir -p "$ov"
clone="$store/images/101/vm-101-disk-0.qcow2"
clusters=(16k 32k 64k 128k 256k 512k 1M 2M)

# one_run CONFIG: a fresh image for CONFIG, benchmarked; prints "CONFIG iops amp"
#   CONFIG: <cluster>-<backed|plain>-<extended_l2 off|on>, or "default" (qemu-img create's
#   defaults) and "vsm" (what `vsm clone` makes), both overlays on the raw backing file, or
#   "ceiling": no qcow2 at all, a sparse raw file written the same way (what this disk allows)
one_run() {
  local config=$1 cluster backed ext step
  rm -f "$ov/x.qcow2" "$ov/x.raw"
  case $config in
    ceiling)
      qemu-img create -q -f raw "$ov/x.raw" $((writes * max_step))
      echo "$config $(bench "$ov/x.raw" 1M raw)" ;;
    default)
      (cd "$ov" && qemu-img create -q -f qcow2 -F raw -b ../100/base-100-disk-0.raw x.qcow2)
      echo "$config $(bench "$ov/x.qcow2" 1M)" ;;
    vsm)
      "$vsm" clone bench:100/base-100-disk-0.raw 101 >/dev/null
      echo "$config $(bench "$clone" 1M)"
      "$vsm" free bench:100/base-100-disk-0.raw/101/vm-101-disk-0.qcow2 >/dev/null ;;
    *)
      IFS=- read -r cluster backed ext <<<"$config"
      step=$(( $(bytes "$cluster") > 1048576 ? $(bytes "$cluster") : 1048576 ))
      if [[ $backed == backed ]]; then
        (cd "$ov" && qemu-img create -q -f qcow2 -F raw -b ../100/base-100-disk-0.raw -o cluster_size=$cluster,extended_l2=$ext x.qcow2)
      else
        qemu-img create -q -f qcow2 -o cluster_size=$cluster,extended_l2=$ext "$ov/x.qcow2" $((writes * max_step))
      fi
      echo "$config $(bench "$ov/x.qcow2" "$step")" ;;
  esac
}

configs=(default vsm ceiling)
for cluster in "${clusters[@]}"; do
  for backed in backed plain; do
    for ext in off on; do configs+=("$cluster-$backed-$ext"); done
  done
done
# rounds outermost: every configuration sees the same drift of this shared machine
runs="$sb/runs"
for ((r = 1; r <= rounds; r++)); do
  echo "round $r of $rounds" >&2
  for config in "${configs[@]}"; do one_run "$config"; done >> "$runs"
done
"$vsm" clone --dry-run bench:100/base-100-disk-0.raw 101 | grep 'qemu-img create' | sed 's/^+ /vsm clone runs: /' >&2 || true

# med CONFIG: "median-iops median-amp" of CONFIG's runs
med() { awk -v c="$1" '$1 == c {print $2, $3}' "$runs" | median_of; }
tsv="$out/subclusters.tsv"   # kept: the chart's data
for cluster in "${clusters[@]}"; do
  echo "$cluster $(med "$cluster-backed-off") $(med "$cluster-backed-on") $(med "$cluster-plain-off") $(med "$cluster-plain-on")"
done > "$tsv"
read -r d_iops d_amp < <(med default)
read -r v_iops v_amp < <(med vsm)
read -r c_iops c_amp < <(med ceiling)

{
  echo "4 KiB writes, each to a new cluster, $writes per run, medians of $rounds runs (qemu-img $(qemu-img --version | sed -n '1s/.*version \([^ ]*\).*/\1/p'), $(nproc) cores); load average $(cut -d' ' -f1 /proc/loadavg) at the end."
  echo
  echo "| cluster | overlay IOPS | + extended_l2 | ratio | host B/guest B | + extended_l2 | no backing IOPS | + extended_l2 | host B/guest B | + extended_l2 |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  awk '{printf "| %s | %.0f | %.0f | %.1fx | %.2f | %.2f | %.0f | %.0f | %.2f | %.2f |\n", $1, $2, $4, $4 / $2, $3, $5, $6, $8, $7, $9}' "$tsv"
  echo
  echo "| overlay on the raw backing file | IOPS | host B/guest B |"
  echo "|---|---|---|"
  printf '| qemu-img create defaults (64k, no extended_l2) | %.0f | %.2f |\n' "$d_iops" "$d_amp"
  printf '| vsm clone | %.0f | %.2f |\n' "$v_iops" "$v_amp"
  printf '| ratio vsm / qemu-img defaults | %.1fx | |\n' "$(ratio "$v_iops" "$d_iops")"
  printf '| no qcow2: a sparse raw file written the same way (the ceiling) | %.0f | %.2f |\n' "$c_iops" "$c_amp"
  printf '| ratio ceiling / qemu-img defaults | %.1fx | |\n' "$(ratio "$c_iops" "$d_iops")"
} | tee "$out/subclusters.md"

gnuplot <<GP
set terminal svg size 860,420 dynamic font "sans,11" noenhanced
set output "$out/subclusters.svg"
set multiplot layout 1,2 title "qcow2 4 KiB writes to new clusters (qemu-img bench, medians of $rounds)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set key top right font ",9"
set grid ytics
set xlabel "cluster size"
set title "IOPS, overlay on a raw backing file"
set ylabel "IOPS"
plot "$tsv" using 2:xtic(1) title "extended_l2=off" lc rgb "#b0b0b0", "" using 4 title "extended_l2=on" lc rgb "#2a6fb0"
set title "host bytes allocated per guest byte"
set ylabel "bytes / byte (log)"
set logscale y
set yrange [0.5:*]
plot "$tsv" using 3:xtic(1) title "extended_l2=off" lc rgb "#b0b0b0", "" using 5 title "extended_l2=on" lc rgb "#2a6fb0"
unset multiplot
GP
echo "chart: $out/subclusters.svg" >&2
