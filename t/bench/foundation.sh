#!/usr/bin/env bash
# Side-by-side timings of vsm's basic operations against the bare qemu-img commands they run,
# in one run on this machine: medians of N rounds, and the ratio vsm / bare.
#   t/bench/foundation.sh [rounds] [images-to-list]
# Uses a throw-away sandbox (config, data, locks) under a temp dir; removes it at the end.
set -euo pipefail
rounds=${1:-7}
nlist=${2:-1000}
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
vsm="$root/cli/vsm"
sb=$(mktemp -d /tmp/vsm-bench.XXXXXX)
trap 'chattr -R -f -i "$sb" 2>/dev/null; rm -rf "$sb"' EXIT
export VSM_CONFIG="$sb/etc/storage.yaml" VSM_LOCK_DIR="$sb/locks" XDG_DATA_HOME="$sb/data"
mkdir -p "$sb/etc"   # $VSM_CONFIG must name a file that exists: the built-in default's
printf 'storages:\n  local:\n    type: dir\n    path: %s\n    content: [images, rootdir, iso, vztmpl, backup, snippets, import]\n' \
  "$XDG_DATA_HOME/vsm/local" >"$VSM_CONFIG"
store="$sb/data/vsm/local"
"$vsm" status >/dev/null   # builds cli/vsm if needed, creates the default storage's dirs

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
timed() { local t0 t1; t0=$(now); "$@" >/dev/null; t1=$(now); echo "$t1 - $t0" | bc -l; }

declare -A med
measure() { # name, command...
  local name=$1; shift
  local i; for ((i = 0; i < rounds; i++)); do timed "$@"; done | median > "$sb/m"
  med[$name]=$(cat "$sb/m")
}

# 1. allocate a 100 GiB qcow2 (preallocation=metadata, pve's default)
n=0
alloc_vsm() { n=$((n + 1)); "$vsm" alloc local $((1000 + n)) '' 100G --format qcow2; }
alloc_bare() { n=$((n + 1)); mkdir -p "$store/images/9$n"; qemu-img create -o preallocation=metadata -f qcow2 "$store/images/9$n/x.qcow2" 104857600K; }
measure alloc_vsm alloc_vsm
measure alloc_bare alloc_bare

# 2. a linked clone of a base
"$vsm" alloc local 500 '' 10G --format qcow2 >/dev/null
"$vsm" create-base local:500/vm-500-disk-0.qcow2 >/dev/null
c=0
clone_vsm() { "$vsm" clone local:500/base-500-disk-0.qcow2 501; }
clone_bare() { c=$((c + 1)); mkdir -p "$store/images/502"; (cd "$store/images/502" && qemu-img create -F qcow2 -b ../500/base-500-disk-0.qcow2 -f qcow2 "x$c.qcow2" -o extended_l2=on,cluster_size=128k,preallocation=metadata); }
measure clone_vsm clone_vsm
measure clone_bare clone_bare

# 3. list a storage holding $nlist qcow2 images
sb2="$sb/list"; mkdir -p "$sb2/images/100"
for ((i = 0; i < nlist; i++)); do qemu-img create -f qcow2 "$sb2/images/100/vm-100-disk-$i.qcow2" 1G >/dev/null; done
"$vsm" add dir many --path "$sb2" --content images >/dev/null
list_vsm() { "$vsm" list many; }
list_bare() { for f in "$sb2"/images/100/*.qcow2; do qemu-img info --output=json "$f"; done; }
rounds_saved=$rounds; rounds=3
measure list_vsm list_vsm
measure list_bare list_bare
rounds=$rounds_saved

printf '%-34s %10s %10s %8s\n' "operation" "vsm (s)" "bare (s)" "ratio"
row() { printf '%-34s %10.3f %10.3f %8.2f\n' "$1" "${med[$2]}" "${med[$3]}" "$(echo "${med[$2]} / ${med[$3]}" | bc -l)"; }
row "alloc 100G qcow2 (metadata)" alloc_vsm alloc_bare
row "linked clone (qcow2 base)" clone_vsm clone_bare
row "list $nlist qcow2 images" list_vsm list_bare
echo "(medians of $rounds rounds; list: 3 rounds; bare list = one qemu-img info per image)"
