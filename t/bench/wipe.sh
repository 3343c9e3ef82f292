#!/usr/bin/env bash
# Zero-out benchmark: on a loop device filled with random data, time side by side
#   vsm      - vsm wipe --device <dev> --yes        (the whole command: JVM start, checks, blkdiscard)
#   bare     - blkdiscard <dev> -v --zeroout --step 33554432   (what vsm runs)
#   cstream  - cstream -i /dev/zero -o <dev> -T 10 -v 1 -b 1048576, unthrottled (pve's fallback
#              without -t; pve's default -t -10485760 caps it at 10 MiB/s), plus the flush of
#              what it left in the page cache
# refilling the device with random data before every timed run, and print the medians, the
# cstream/vsm ratio and vsm's overhead over the bare blkdiscard run, and how much of that is
# the JVM starting (vsm --version). Every run is checked to have left only zeros.
#
# Usage (root): t/bench/wipe.sh            SIZE_GIB=4 ROUNDS=3 BENCH_DIR=/var/tmp by default
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
vsm="$here/../../cli/vsm"
size_gib=${SIZE_GIB:-4}
rounds=${ROUNDS:-3}
dir=${BENCH_DIR:-/var/tmp}

[[ $(id -u) -eq 0 ]] || { echo "wipe.sh: run as root (it attaches a loop device)" >&2; exit 1; }
for tool in losetup blkdiscard cstream blockdev cmp dd; do
  command -v "$tool" >/dev/null || { echo "wipe.sh: $tool is missing (apt-get install util-linux cstream)" >&2; exit 1; }
done

img=$(mktemp "$dir/vsm-wipe-bench.XXXXXX.img")
dev=
cleanup() {
  [[ -n $dev ]] && losetup -d "$dev" 2>/dev/null || true
  rm -f "$img"
}
trap cleanup EXIT
truncate -s "${size_gib}G" "$img"
dev=$(losetup -f --show "$img")
bytes=$(blockdev --getsize64 "$dev")
echo "device $dev: $bytes bytes on $img, write_zeroes_max_bytes $(cat /sys/block/"$(basename "$dev")"/queue/write_zeroes_max_bytes)"
"$vsm" --version >/dev/null # build the CLI first if needed, outside the timings

# random data, written back to the backing file before the clock starts (no dirty pages to race with)
fill() { dd if=/dev/urandom of="$dev" bs=4M count=$((bytes / 4194304)) oflag=direct status=none; sync; }
check_zero() { cmp -s -n "$bytes" "$dev" /dev/zero || { echo "wipe.sh: $1 left non-zero bytes on $dev" >&2; exit 1; }; }
now() { date +%s.%N; }
# seconds taken by "$@", its output kept out of the way
timed() { local t0 t1; t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now); echo "$t1 - $t0" | bc -l; }

run_vsm() { "$vsm" wipe --device "$dev" --yes; }
run_bare() { blkdiscard "$dev" -v --zeroout --step 33554432; }
run_cstream() { cstream -i /dev/zero -o "$dev" -T 10 -v 1 -b 1048576; blockdev --flushbufs "$dev"; }

declare -A times
overheads=
for ((r = 1; r <= rounds; r++)); do
  for what in vsm bare cstream; do
    fill
    t=$(timed "run_$what")
    check_zero "$what"
    times[$what]+="$t "
    declare "last_$what=$t"
    printf 'round %d  %-8s %8.3f s\n' "$r" "$what" "$t"
  done
  overheads+="$(echo "$last_vsm - $last_bare" | bc -l) "
  t=$(timed "$vsm" --version)
  times[start]+="$t "
  printf 'round %d  %-8s %8.3f s\n' "$r" "start" "$t"
done

median() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
m_vsm=$(median "${times[vsm]}")
m_bare=$(median "${times[bare]}")
m_cstream=$(median "${times[cstream]}")
echo
echo "medians over $rounds rounds, $bytes bytes of random data:"
printf '  vsm wipe --device         %8.3f s  (%s MB/s)\n' "$m_vsm" "$(echo "$bytes / $m_vsm / 1000000" | bc)"
printf '  blkdiscard --zeroout      %8.3f s  (%s MB/s)\n' "$m_bare" "$(echo "$bytes / $m_bare / 1000000" | bc)"
printf '  cstream (unthrottled)     %8.3f s  (%s MB/s)\n' "$m_cstream" "$(echo "$bytes / $m_cstream / 1000000" | bc)"
printf '  cstream / vsm             %8.1fx   (target: >= 20x)\n' "$(echo "$m_cstream / $m_vsm" | bc -l)"
printf '  cstream / blkdiscard      %8.1fx\n' "$(echo "$m_cstream / $m_bare" | bc -l)"
printf '  vsm overhead              %8.3f s  (median vsm - median blkdiscard; target: <= 0.5 s)\n' "$(echo "$m_vsm - $m_bare" | bc -l)"
printf '  of which JVM + CLI start  %8.3f s  (median of vsm --version)\n' "$(median "${times[start]}")"
printf '  vsm overhead, paired      %8.3f s  (median of each round'"'"'s vsm - blkdiscard)\n' "$(median "$overheads")"
