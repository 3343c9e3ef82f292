#!/usr/bin/env bash
# The L2 cache advice of `vsm info`, measured: a 1 TiB qcow2 made by `vsm alloc`
# (preallocation=metadata, sparse on disk), 4 KiB reads each needing another L2 table, opened
# with qemu's default L2 cache and with vsm's image-opts (l2-cache-size = virtual_size * 8 /
# cluster_size), side by side in one run.
# The stride is what one L2 table maps plus what one 4 KiB slice of a table maps: when the cache
# cannot hold every table, qemu caches 4 KiB slices, and a stride of exactly one table would
# touch only the first slice of each (2048 slices of 4 KiB fit qemu's default 32 MiB cache).
#   t/bench/l2cache.sh [reads-per-run] [rounds]
# Writes t/bench/results/l2cache.md.
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
reads=${1:-100000}
rounds=${2:-5}
need qemu-img qemu-utils
out="$root/t/bench/results"; mkdir -p "$out"

sandbox /var/tmp/vsm-bench-l2cache
direct_io_dir "$sb" 4G
vsm_sandbox "$sb"
"$vsm" add dir bench --path "$work/store" --content images >/dev/null
"$vsm" alloc bench 100 '' 1T --format qcow2 --preallocation metadata >/dev/null
info=$("$vsm" info bench:100/vm-100-disk-0.qcow2 --output-format json)
field() { sed -n "s/.*\"$1\":\"\\{0,1\\}\\([^,\"}]*\\).*/\\1/p" <<<"$info"; }
img=$(field path); cluster=$(field cluster-size); cache=$(field l2-cache-size)
opts=$(sed -n 's/.*"image-opts":"\([^"]*\)".*/\1/p' <<<"$info")
entry=$([[ $(field extended-l2) == true ]] && echo 16 || echo 8)
stride=$((cluster / entry * cluster + 4096 / entry * cluster))
echo "image: $(du -h --apparent-size "$img" | cut -f1) virtual file, $(du -h "$img" | cut -f1) allocated; cluster $cluster; stride $stride; vsm: $opts" >&2

# iops OPEN...: 4 KiB reads, $stride apart, $reads of them
iops() {
  local secs
  secs=$(qemu-img bench -t none -i native -d 32 -s 4k -S "$stride" -c "$reads" "$@" |
    sed -n 's/^Run completed in \([0-9.]*\) seconds.*/\1/p')
  ratio "$reads" "$secs"
}
for ((r = 1; r <= rounds; r++)); do
  echo "default $(iops -f qcow2 "$img")"
  echo "vsm $(iops --image-opts "$opts")"
done > "$sb/runs"
med() { awk -v c="$1" '$1 == c {print $2}' "$sb/runs" | median; }
d=$(med default); v=$(med vsm)
{
  echo "1 TiB qcow2 (preallocation=metadata, cluster $((cluster / 1024))k), 4 KiB reads $((stride >> 20)) MiB apart (a new L2 table and slice each, \`qemu-img bench -t none -i native -d 32 -s 4k -S $stride\`), $reads per run, medians of $rounds runs (qemu-img $(qemu-img --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')); load average $(cut -d' ' -f1 /proc/loadavg) at the end."
  echo
  echo "| L2 cache | IOPS |"
  echo "|---|---|"
  printf '| qemu default (no l2-cache-size) | %.0f |\n' "$d"
  printf '| vsm info image-opts (l2-cache-size=%s, %d MiB) | %.0f |\n' "$cache" $((cache >> 20)) "$v"
  printf '| ratio | %.1fx |\n' "$(ratio "$v" "$d")"
} | tee "$out/l2cache.md"
