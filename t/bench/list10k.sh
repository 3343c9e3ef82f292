#!/usr/bin/env bash
# `vsm list` of a dir storage holding N qcow2 images (N/2 standalone, N/2 linked clones of 10
# bases) against `vsm status` on the same configuration: interleaved rounds, median wall time,
# CPU and peak RSS of each, and the difference of the medians against the target (list at most
# 0.2 s over status, at most 100 MB RSS). First checks that the listing (text and JSON) is
# identical to the one qemu-img gives (VSM_IMAGE_INFO=qemu-img, one qemu-img info per image).
# Interleaved with them, the floor of any Java listing: ListFloor (next to this script) does only
# the system calls a listing cannot do without, with the launcher's JVM flags, against an empty
# main run the same way.
#   t/bench/list10k.sh [images] [rounds]
# Writes t/bench/results/list10k.md. SKIP_QEMU_IMG=1 leaves out the qemu-img comparison (it
# runs one qemu-img per image: over a minute for 10,000).
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
n=${1:-10000}
rounds=${2:-11}
need qemu-img qemu-utils
out="$root/t/bench/results"; mkdir -p "$out"

sandbox /var/tmp/vsm-bench-list10k
vsm_sandbox "$sb"
store="$sb/store"
"$vsm" add dir many --path "$store" --content images >/dev/null
img="$store/images"
# The images are copies of a few made by qemu-img (tee writes one to many files in one process):
# standalone 4G images over 50 VMs, and linked clones (made as vsm clone makes them, without
# the metadata preallocation, which would take a MiB each) over n/20 VMs, disk k a clone of base k.
qemu-img create -q -f qcow2 "$sb/plain.qcow2" 4G
for ((b = 0; b < 10; b++)); do
  mkdir -p "$img/$((100 + b))"
  qemu-img create -q -f qcow2 -o preallocation=metadata "$img/$((100 + b))/base-$((100 + b))-disk-0.qcow2" 8G
  mkdir -p "$sb/clone"
  # -u: the backing file is named as the clones name it (relative to their own directory), not opened
  qemu-img create -q -f qcow2 -F qcow2 -b "../$((100 + b))/base-$((100 + b))-disk-0.qcow2" -u \
    -o extended_l2=on,cluster_size=128k "$sb/clone/c$b.qcow2" 8G
done
half=$((n / 2))
files=()
for ((i = 0; i < half; i++)); do
  vmid=$((1000 + i % 50)); files+=("$img/$vmid/vm-$vmid-disk-$((i / 50)).qcow2")
done
mkdir -p "$img"/{1000..1049}
printf '%s\0' "${files[@]}" | xargs -0 -n 500 sh -c 'tee "$@" <"$0" >/dev/null' "$sb/plain.qcow2"
for ((k = 0; k < 10; k++)); do
  files=()
  for ((i = k; i < half; i += 10)); do
    vmid=$((2000 + i / 10)); mkdir -p "$img/$vmid"; files+=("$img/$vmid/vm-$vmid-disk-$k.qcow2")
  done
  [[ ${#files[@]} -gt 0 ]] && printf '%s\0' "${files[@]}" | xargs -0 -n 500 sh -c 'tee "$@" <"$0" >/dev/null' "$sb/clone/c$k.qcow2"
done
count=$(find "$img" -name '*.qcow2' | wc -l)
echo "$count qcow2 images ($half linked clones) in $store" >&2

same=skipped
if [[ -z ${SKIP_QEMU_IMG:-} ]]; then
  same=yes
  for f in text json; do
    "$vsm" list many --output-format "$f" >"$sb/native.$f"
    VSM_IMAGE_INFO=qemu-img "$vsm" list many --output-format "$f" >"$sb/qemu-img.$f"
    cmp -s "$sb/native.$f" "$sb/qemu-img.$f" || { same=NO; diff "$sb/native.$f" "$sb/qemu-img.$f" | head -5 >&2; }
  done
  echo "listings identical to VSM_IMAGE_INFO=qemu-img (text and json): $same ($(grep -c ^many: "$sb/native.text") lines)" >&2
fi

# one run: wall, user+sys CPU (s), peak RSS (KiB)
run() { /usr/bin/time -f '%e %U %S %M' -o "$sb/t" "$@" >"$sb/o" 2>/dev/null; awk '{print $1, $2 + $3, $4}' "$sb/t"; }
mkdir -p "$sb/floor"
javac -d "$sb/floor" "$root/t/bench/ListFloor.java"
read -ra jvm_flags <<<"$(launcher_flags cds_flags)"
floor=(java "${jvm_flags[@]}" -cp "$sb/floor" ListFloor)
: >"$sb/status"; : >"$sb/list"; : >"$sb/empty"; : >"$sb/floor.t"
"$vsm" status >/dev/null; "$vsm" list many >/dev/null # warm the page cache and the build
for ((r = 0; r < rounds; r++)); do
  run "$vsm" status >>"$sb/status"
  run "$vsm" list many >>"$sb/list"
  run "${floor[@]}" >>"$sb/empty"
  run "${floor[@]}" "$img" >>"$sb/floor.t"
done
load=$(cut -d' ' -f1-3 /proc/loadavg)
col() { awk -v c="$2" '{print $c}' "$1"; }
stats() { # file column: median min max
  printf '%s %s %s' "$(col "$1" "$2" | median)" "$(col "$1" "$2" | sort -g | head -1)" "$(col "$1" "$2" | sort -g | tail -1)"
}
read -r sw swmin swmax <<<"$(stats "$sb/status" 1)"
read -r lw lwmin lwmax <<<"$(stats "$sb/list" 1)"
read -r sc _ _ <<<"$(stats "$sb/status" 2)"
read -r lc lcmin lcmax <<<"$(stats "$sb/list" 2)"
read -r sr _ _ <<<"$(stats "$sb/status" 3)"
read -r lr lrmin lrmax <<<"$(stats "$sb/list" 3)"
read -r ew _ _ <<<"$(stats "$sb/empty" 1)"
read -r fw fwmin fwmax <<<"$(stats "$sb/floor.t" 1)"
read -r ec _ _ <<<"$(stats "$sb/empty" 2)"
read -r fc _ _ <<<"$(stats "$sb/floor.t" 2)"
diff=$(echo "$lw - $sw" | bc -l)
wall_ok=$(echo "$diff <= 0.2" | bc -l); rss_ok=$((lr <= 100 * 1024))
{
  echo "\`vsm list\` of $count qcow2 images ($half linked clones) against \`vsm status\`, $rounds interleaved rounds (medians, ranges in brackets); listing identical to VSM_IMAGE_INFO=qemu-img: $same; load average $load at the end."
  echo
  echo "| command | wall | CPU (user+sys) | peak RSS |"
  echo "|---|---|---|---|"
  printf '| vsm status | %.3f s [%.3f–%.3f] | %.3f s | %d MB |\n' "$sw" "$swmin" "$swmax" "$sc" $((sr / 1024))
  printf '| vsm list many | %.3f s [%.3f–%.3f] | %.3f s [%.3f–%.3f] | %d MB [%d–%d] |\n' "$lw" "$lwmin" "$lwmax" "$lc" "$lcmin" "$lcmax" \
    $((lr / 1024)) $((lrmin / 1024)) $((lrmax / 1024))
  printf '| list − status | %.3f s (target ≤ 0.2 s: %s) | %.3f s | RSS target ≤ 100 MB: %s |\n' "$diff" \
    "$([[ $wall_ok == 1 ]] && echo met || echo missed)" "$(echo "$lc - $sc" | bc -l)" "$([[ $rss_ok == 1 ]] && echo met || echo missed)"
  printf '| java, empty main (the launcher'"'"'s flags) | %.3f s | %.3f s | |\n' "$ew" "$ec"
  printf '| ListFloor: the least a Java listing does | %.3f s [%.3f–%.3f] | %.3f s | |\n' "$fw" "$fwmin" "$fwmax" "$fc"
  printf '| ListFloor − empty main | %.3f s | %.3f s | |\n' "$(echo "$fw - $ew" | bc -l)" "$(echo "$fc - $ec" | bc -l)"
} | tee "$out/list10k.md"
