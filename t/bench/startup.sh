#!/usr/bin/env bash
# Wall time of `cli/vsm status` and `cli/vsm path` on the built-in default configuration, before
# and after the start-up work, side by side in one run (rounds interleaved: every round runs each
# command once, so the drift of a shared machine reaches all of them alike):
#   before   the tree at BASELINE (default: the commit before the start-up work), built here
#   after    this tree's cli/vsm (class-data sharing archive, logging set up in code, lazy parts)
#   no-cds   this tree's jar without the archive (what the archive alone is worth)
#   jvm      java -version with the same flags (the floor: a JVM that runs nothing)
#   t/bench/startup.sh [runs] [baseline-commit]
# Writes t/bench/results/startup.md.
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
runs=${1:-40}
baseline=${2:-af745b8}
[[ -x /usr/bin/time ]] || need /usr/bin/time time
out="$root/t/bench/results"; mkdir -p "$out"

sandbox /var/tmp/vsm-bench-startup
git -C "$root" archive "$baseline" | tar -x -C "$sb" --one-top-level=before
echo "building $baseline in $sb/before ..." >&2
(cd "$sb/before" && mvn -B -q -Dstyle.color=never -DskipTests -pl cli -am package >&2)
(cd "$root" && mvn -B -q -Dstyle.color=never -DskipTests -pl cli -am package >&2)
# the built-in default: no $VSM_CONFIG (naming a missing file is an error) and no /etc/vsm/storage.yaml
[[ ! -e /etc/vsm/storage.yaml ]] || { echo "startup.sh measures the built-in default: /etc/vsm/storage.yaml exists" >&2; exit 1; }
unset VSM_CONFIG
export XDG_DATA_HOME="$sb/data" VSM_LOCK_DIR="$sb/locks"
"$vsm" status >/dev/null
flags="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto"
vol=local:100/vm-100-disk-0.qcow2
commands=("$sb/before/cli/vsm status" "$vsm status" "java $flags -jar $root/cli/target/vsm-cli.jar status"
          "$sb/before/cli/vsm path $vol" "$vsm path $vol" "java $flags -version")
for ((r = 0; r < runs + 2; r++)); do   # the first two rounds warm the page cache and are dropped
  for i in "${!commands[@]}"; do
    /usr/bin/time -f "$i %e %U" -a -o "$sb/times" ${commands[$i]} >/dev/null 2>&1
  done
  ((r == 1)) && : > "$sb/times"
done
med=(); usr=()
for i in "${!commands[@]}"; do
  med+=("$(awk -v c="$i" '$1 == c {print $2}' "$sb/times" | median)")
  usr+=("$(awk -v c="$i" '$1 == c {print $3}' "$sb/times" | median)")
done
{
  echo "Wall time on the built-in default configuration, medians of $runs runs ($(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg) at the end); user CPU is a median too (less sensitive to the load than wall time)."
  echo
  echo "| command | median wall | user CPU |"
  echo "|---|---|---|"
  names=("cli/vsm status, before ($baseline)" "cli/vsm status, after" "vsm status without the CDS archive"
         "cli/vsm path, before" "cli/vsm path, after" "java -version (JVM floor)")
  for i in "${!names[@]}"; do printf '| %s | %.3f s | %.3f s |\n' "${names[$i]}" "${med[$i]}" "${usr[$i]}"; done
  printf '\nstatus: %.2fx faster than before; path: %.2fx.\n' "$(ratio "${med[0]}" "${med[1]}")" "$(ratio "${med[3]}" "${med[4]}")"
} | tee "$out/startup.md"
