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
#               GUEST=1 t/bench/wipe.sh    the same on a real LV (a linear LV on a virtio disk, dm-N)
#                                          in the qemu guest of the device-mapper tests (dev.vsm.t.guest)
#               DEVICE=/dev/X t/bench/wipe.sh   on that device instead of a loop device (erases it)
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
vsm="$here/../../cli/vsm"
size_gib=${SIZE_GIB:-4}
rounds=${ROUNDS:-3}
dir=${BENCH_DIR:-/var/tmp}

[[ $(id -u) -eq 0 ]] || { echo "wipe.sh: run as root (it attaches a loop device)" >&2; exit 1; }

if [[ ${GUEST:-} == 1 ]]; then
  # boot the tests' guest (its classes compiled here), make a VG on its disk and an LV of
  # SIZE_GIB, and run this script on it there with DEVICE set
  root=$(cd "$here/../.." && pwd)
  [[ -f $root/t/target/test-classes/dev/vsm/t/guest/GuestShell.class ]] || (cd "$root" && mvn -B -q test-compile -pl t -am >&2)
  "$vsm" --version >/dev/null
  junit=$(find ~/.m2/repository/org/opentest4j -name 'opentest4j-*.jar' | sort -V | tail -n 1)
  scenario=$(mktemp)
  trap 'rm -f "$scenario"' EXIT
  cat > "$scenario" <<SCENARIO
set -e
lvm pvcreate -q -ff -y /dev/vda && lvm vgcreate -q vsmbench /dev/vda
lvm lvcreate -q -y -L ${size_gib}g -n wipe vsmbench
DEVICE=/dev/vsmbench/wipe SIZE_GIB=$size_gib ROUNDS=$rounds $here/wipe.sh
lvm vgremove -q -f -y vsmbench
SCENARIO
  exec java -Dvsm.home="$root" -cp "$root/t/target/test-classes:$root/framework/target/test-classes:$junit" \
    dev.vsm.t.guest.GuestShell "$scenario" $((size_gib * 1024 + 64))
fi

for tool in losetup blkdiscard cstream blockdev cmp dd; do
  command -v "$tool" >/dev/null || { echo "wipe.sh: $tool is missing (apt-get install util-linux cstream)" >&2; exit 1; }
done

img=
dev=${DEVICE:-}
cleanup() {
  [[ -n $img && -n $dev ]] && losetup -d "$dev" 2>/dev/null || true
  if [[ -n $img ]]; then rm -f "$img"; fi
}
trap cleanup EXIT
if [[ -z $dev ]]; then
  img=$(mktemp "$dir/vsm-wipe-bench.XXXXXX.img")
  truncate -s "${size_gib}G" "$img"
  dev=$(losetup -f --show "$img")
fi
bytes=$(blockdev --getsize64 "$dev")
# sysfs by device number: without udev lvm2's /dev/mapper/VG-LV is a node of its own, not a link to dm-N
sysfs=/sys/dev/block/$((0x$(stat -Lc %t "$dev"))):$((0x$(stat -Lc %T "$dev")))
echo "device $dev ($(basename "$(readlink -f "$sysfs")")): $bytes bytes${img:+ on $img}, write_zeroes_max_bytes $(cat "$sysfs/queue/write_zeroes_max_bytes")"
echo "load average: $(cat /proc/loadavg)"
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
