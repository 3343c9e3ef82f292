#!/usr/bin/env bash
# How qemu-img convert's sparse size (-S) trades time against allocated space, on this machine:
# a 2 GiB raw source with scattered data and zero runs (per 16 MiB: 6 MiB of random data holding
# 4 KiB zero runs every 64 KiB and one zero run each of 64 KiB, 512 KiB and 1 MiB; then 10 MiB
# never written), converted to a new raw and a new qcow2 file with the options vsm uses for a dir
# import (preallocation off for raw, metadata for qcow2), for -S 4k, 64k, 1M and 0.
# Prints the median time and the allocated size of the target side by side.
#   t/bench/sparse-size.sh [rounds]
# Works in a throw-away directory under ${TMPDIR:-/var/tmp} (about 6 GiB free needed); removes it.
set -euo pipefail
rounds=${1:-5}
dir=$(mktemp -d "${TMPDIR:-/var/tmp}/vsm-sparse.XXXXXX")
trap 'rm -rf "$dir"' EXIT
src="$dir/source.raw"

# the source: written by perl (part of every Debian) from /dev/urandom
perl -e '
  use strict; use warnings;
  my ($path) = @ARGV;
  my $MiB = 1 << 20; my $KiB = 1 << 10;
  open(my $rnd, "<:raw", "/dev/urandom") or die "urandom: $!";
  open(my $out, "+>:raw", $path) or die "$path: $!";
  truncate($out, 2048 * $MiB) or die "truncate: $!";
  for (my $slot = 0; $slot < 128; $slot++) {
    my $base = $slot * 16 * $MiB;
    read($rnd, my $data, 6 * $MiB) == 6 * $MiB or die "short read";
    for (my $o = 16 * $KiB; $o < 6 * $MiB; $o += 64 * $KiB) { substr($data, $o, 4 * $KiB) = "\0" x (4 * $KiB); }
    substr($data, 1536 * $KiB, 64 * $KiB) = "\0" x (64 * $KiB);
    substr($data, 2560 * $KiB, 512 * $KiB) = "\0" x (512 * $KiB);
    substr($data, 4 * $MiB, 1 * $MiB) = "\0" x (1 * $MiB);
    seek($out, $base, 0) or die "seek: $!";
    print $out $data or die "write: $!";
  }
  close($out) or die "close: $!";
' "$src"
sync

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
allocated() { echo $(( $(stat -c '%b' "$1") * $(stat -c '%B' "$1") )); }

declare -A secs bytes
for fmt in raw qcow2; do
  case $fmt in raw) opts=preallocation=off ;; qcow2) opts=preallocation=metadata ;; esac
  for s in 4k 64k 1M 0; do
    : > "$dir/times"
    for ((i = 0; i < rounds; i++)); do
      rm -f "$dir/target"
      t0=$(now)
      qemu-img convert -f raw -O "$fmt" -o "$opts" -S "$s" "$src" "$dir/target"
      t1=$(now)
      echo "$t1 - $t0" | bc -l >> "$dir/times"
    done
    secs[$fmt,$s]=$(median < "$dir/times")
    bytes[$fmt,$s]=$(allocated "$dir/target")
  done
done

data=$(allocated "$src")
printf 'source: 2 GiB raw, %d MiB allocated; %s; medians of %d rounds\n' $((data >> 20)) "$(qemu-img --version | head -1)" "$rounds"
printf '%-6s %-6s %10s %16s %10s\n' target "-S" "time (s)" "allocated (MiB)" "vs -S 4k"
for fmt in raw qcow2; do
  for s in 4k 64k 1M 0; do
    printf '%-6s %-6s %10.3f %16.1f %9.2fx\n' "$fmt" "$s" "${secs[$fmt,$s]}" \
      "$(echo "${bytes[$fmt,$s]} / 1048576" | bc -l)" "$(echo "${secs[$fmt,$s]} / ${secs[$fmt,4k]}" | bc -l)"
  done
done
