#!/usr/bin/env bash
# `vsm list` of a dir storage holding N qcow2 images, half of them linked clones: qcow2 headers
# read in Java (vsm's default) against one `qemu-img info` per image (VSM_IMAGE_INFO=qemu-img,
# what pve does), and against that loop of bare qemu-img runs, side by side in one run. Checks
# that both vsm paths print the same listing.
#   t/bench/listing.sh [images] [rounds]
# Writes t/bench/results/listing.md.
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
n=${1:-2000}
rounds=${2:-3}
need qemu-img qemu-utils
need hyperfine hyperfine
out="$root/t/bench/results"; mkdir -p "$out"

sandbox /var/tmp/vsm-bench-listing
vsm_sandbox "$sb"
store="$sb/store"
"$vsm" add dir many --path "$store" --content images >/dev/null
listing_images "$store" "$n" # copies of images qemu-img made
count=$(find "$store/images" -name '*.qcow2' | wc -l)
echo "$count qcow2 images ($((n / 2)) linked clones) in $store" >&2

"$vsm" list many --output-format json > "$sb/native.json"
VSM_IMAGE_INFO=qemu-img "$vsm" list many --output-format json > "$sb/qemu-img.json"
cmp -s "$sb/native.json" "$sb/qemu-img.json" && same=yes || same=NO
echo "listings identical: $same ($(grep -o '"volid"' "$sb/native.json" | wc -l) entries)" >&2

cat > "$sb/bare.sh" <<SH
#!/bin/sh
for f in "$store"/images/*/*.qcow2; do qemu-img info --output=json -f qcow2 "\$f"; done >/dev/null
SH
chmod +x "$sb/bare.sh"
hyperfine -N -w 1 -r "$rounds" --export-json "$sb/h.json" \
  -n native "$vsm list many" \
  -n qemu-img "env VSM_IMAGE_INFO=qemu-img $vsm list many" \
  -n bare "$sb/bare.sh" >&2
# the median of each command, in the order given
mapfile -t med < <(grep -o '"median": *[0-9.e+-]*' "$sb/h.json" | sed 's/.*: *//')
{
  echo "\`vsm list\` of $count qcow2 images ($((n / 2)) linked clones), medians of $rounds runs; listings identical: $same; load average $(cut -d' ' -f1 /proc/loadavg) at the end."
  echo
  echo "| path | time | ratio to vsm |"
  echo "|---|---|---|"
  printf '| vsm list (headers read in Java, one stat for all) | %.3f s | 1 |\n' "${med[0]}"
  printf '| vsm list, VSM_IMAGE_INFO=qemu-img (one qemu-img info per image) | %.3f s | %.1fx |\n' "${med[1]}" "$(ratio "${med[1]}" "${med[0]}")"
  printf '| bare loop of qemu-img info, no vsm | %.3f s | %.1fx |\n' "${med[2]}" "$(ratio "${med[2]}" "${med[0]}")"
} | tee "$out/listing.md"
