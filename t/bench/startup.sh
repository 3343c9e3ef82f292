#!/usr/bin/env bash
# Wall time of `cli/vsm status` and `cli/vsm path` on the built-in default configuration, and of
# `vsm status` on 50 dir storages against one, before and after the start-up work, side by side
# in one run (rounds interleaved: every round runs each command once, so the drift of a shared
# machine reaches all of them alike):
#   before   the tree at BASELINE (default: the commit before the latest start-up work), built here
#   after    this tree's cli/vsm (CDS archive, or on JDK 25+ the AOT cache)
#   no-cds   this tree's jar without the archive (what the archive alone is worth)
#   java     java -version with the launcher's flags (the floor: a JVM that runs nothing)
#   floor    StatusFloor (next to this script): the least a status and a path do on vsm's
#            libraries and contracts, with an archive of its own
#   jdk25    the same with JDK 25 first on PATH (when $JDK25, default Temurin 25's directory, exists)
#   json     status --output-format json, before and after
#   t/bench/startup.sh [runs] [baseline-commit]
# Writes t/bench/results/startup.md and the chart startup.svg.
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
runs=${1:-20}
baseline=${2:-8cbaa97}
jdk25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
[[ -x /usr/bin/time ]] || need /usr/bin/time time
need gnuplot gnuplot-nox
out="$root/t/bench/results"; mkdir -p "$out"

sandbox /var/tmp/vsm-bench-startup
# --no-same-permissions: git archive writes directories group-writable (0775), which a tar run
# as root keeps, and vsm then refuses its training's lock directory inside them (so the baseline
# got a poor class-data sharing archive)
git -C "$root" archive "$baseline" | tar -x --no-same-permissions -C "$sb" --one-top-level=before
echo "building $baseline in $sb/before ..." >&2
(cd "$sb/before" && mvn -B -q -Dstyle.color=never -DskipTests -pl cli -am package >&2)
(cd "$root" && mvn -B -q -Dstyle.color=never -DskipTests -pl cli -am package >&2)
# the built-in default: no $VSM_CONFIG (naming a missing file is an error) and no /etc/vsm/storage.yaml
[[ ! -e /etc/vsm/storage.yaml ]] || { echo "startup.sh measures the built-in default: /etc/vsm/storage.yaml exists" >&2; exit 1; }
unset VSM_CONFIG
export XDG_DATA_HOME="$sb/data" VSM_LOCK_DIR="$sb/locks"
# 1 and 50 dir storages, each with every content type (so activation makes its directories)
for n in 1 50; do
  { echo "storages:"
    for ((i = 1; i <= n; i++)); do
      printf '  s%02d:\n    type: dir\n    path: %s/dirs/s%02d\n    content: [images, rootdir, iso, vztmpl, backup, snippets, import]\n' "$i" "$sb" "$i"
    done; } >"$sb/$n.yaml"
done
"$vsm" status >/dev/null
"$vsm" status --config "$sb/50.yaml" >/dev/null
# the launcher's own JVM flags, so java -version runs the same way
flags=$(launcher_flags cds_flags)
aot_flags=$(launcher_flags aot_flags)
vol=local:100/vm-100-disk-0.qcow2
names=("cli/vsm status, before ($baseline)" "cli/vsm status, after" "vsm status without the CDS archive"
       "cli/vsm path, before" "cli/vsm path, after" "java -version (JVM floor)"
       "status of 1 dir storage, before" "status of 50 dir storages, before"
       "status of 1 dir storage, after" "status of 50 dir storages, after"
       "java -version, serial collector (the floor before G1: the JDK 25 flags)")
commands=("$sb/before/cli/vsm status" "$vsm status" "java $flags -jar $root/cli/target/vsm-cli.jar status"
          "$sb/before/cli/vsm path $vol" "$vsm path $vol" "java $flags -version"
          "$sb/before/cli/vsm status --config $sb/1.yaml" "$sb/before/cli/vsm status --config $sb/50.yaml"
          "$vsm status --config $sb/1.yaml" "$vsm status --config $sb/50.yaml"
          "java $aot_flags -version")
# the floor of these commands on vsm's libraries and contracts (StatusFloor, next to this script)
status_floor "$sb/floor" "status --config $sb/1.yaml" "status --config $sb/50.yaml" \
  "path --config $sb/1.yaml s01:100/vm-100-disk-0.qcow2"
names+=("StatusFloor status, 1 dir storage (the floor on vsm's libraries)" "StatusFloor status, 50 dir storages"
        "StatusFloor path")
commands+=("$floor status --config $sb/1.yaml" "$floor status --config $sb/50.yaml"
           "$floor path --config $sb/1.yaml s01:100/vm-100-disk-0.qcow2")
if [[ -x $jdk25/bin/java ]]; then
  PATH="$jdk25/bin:$PATH" "$vsm" status >/dev/null 2>&1   # makes the AOT cache (first run after a build)
  names+=("cli/vsm status, after, JDK 25 (AOT cache)" "cli/vsm path, after, JDK 25" "java -version, JDK 25")
  commands+=("env PATH=$jdk25/bin:$PATH $vsm status" "env PATH=$jdk25/bin:$PATH $vsm path $vol"
             "env PATH=$jdk25/bin:$PATH java $aot_flags -version")
fi
# a machine format: JSON through what writes it (jackson), before and after
json_at=${#commands[@]}
names+=("cli/vsm status --output-format json, before" "cli/vsm status --output-format json, after")
commands+=("$sb/before/cli/vsm status --output-format json" "$vsm status --output-format json")
for ((r = 0; r < runs + 2; r++)); do   # the first two rounds warm the page cache and are dropped
  for i in "${!commands[@]}"; do
    # wall from bash's microsecond clock (time's %e has 10 ms steps, a third of java -version);
    # CPU (user + sys) from time, whose 10 ms steps the medians smooth
    t0=$EPOCHREALTIME
    /usr/bin/time -f "%U %S" -o "$sb/cpu" ${commands[$i]} >/dev/null 2>&1
    t1=$EPOCHREALTIME
    read -r u s <"$sb/cpu"
    awk -v i="$i" -v a="${t0/,/.}" -v b="${t1/,/.}" -v u="$u" -v s="$s" 'BEGIN {printf "%s %.4f %.2f\n", i, b - a, u + s}' >>"$sb/times"
  done
  ((r == 1)) && : > "$sb/times"
done
med=(); usr=(); rng=()
for i in "${!commands[@]}"; do
  med+=("$(awk -v c="$i" '$1 == c {print $2}' "$sb/times" | median)")
  usr+=("$(awk -v c="$i" '$1 == c {print $3}' "$sb/times" | median)")
  rng+=("$(awk -v c="$i" '$1 == c {print $2}' "$sb/times" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.3f–%.3f", lo, hi}')")
done
{
  echo "Wall time, medians (and ranges) of $runs interleaved runs ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end); CPU (user + sys) is a median too (less sensitive to the load than wall time)."
  echo
  echo "| command | median wall | range | CPU |"
  echo "|---|---|---|---|"
  for i in "${!names[@]}"; do printf '| %s | %.3f s | %s s | %.3f s |\n' "${names[$i]}" "${med[$i]}" "${rng[$i]}" "${usr[$i]}"; done
  echo
  printf 'status: %.2fx faster than before, %.2fx java -version; path: %.2fx faster, %.2fx java -version.\n' \
    "$(ratio "${med[0]}" "${med[1]}")" "$(ratio "${med[1]}" "${med[5]}")" "$(ratio "${med[3]}" "${med[4]}")" "$(ratio "${med[4]}" "${med[5]}")"
  printf 'Against java -version with the serial collector: status %.2fx, path %.2fx.\n' \
    "$(ratio "${med[1]}" "${med[10]}")" "$(ratio "${med[4]}" "${med[10]}")"
  printf '50 dir storages against 1: %.2fx before, %.2fx after.\n' "$(ratio "${med[7]}" "${med[6]}")" "$(ratio "${med[9]}" "${med[8]}")"
  printf 'StatusFloor: status %.2fx java -version, path %.2fx; 50 dir storages against 1: %.2fx.\n' \
    "$(ratio "${med[11]}" "${med[5]}")" "$(ratio "${med[13]}" "${med[5]}")" "$(ratio "${med[12]}" "${med[11]}")"
  printf 'vsm against StatusFloor: status %.2fx (%+.3f s), path %.2fx (%+.3f s), 50 dir storages %.2fx (%+.3f s).\n' \
    "$(ratio "${med[1]}" "${med[11]}")" "$(echo "${med[1]} - ${med[11]}" | bc -l)" \
    "$(ratio "${med[4]}" "${med[13]}")" "$(echo "${med[4]} - ${med[13]}" | bc -l)" \
    "$(ratio "${med[9]}" "${med[12]}")" "$(echo "${med[9]} - ${med[12]}" | bc -l)"
  printf 'status --output-format json: %.2fx faster than before, %.2fx java -version, %+.3f s over text.\n' \
    "$(ratio "${med[json_at]}" "${med[json_at + 1]}")" "$(ratio "${med[json_at + 1]}" "${med[5]}")" \
    "$(echo "${med[json_at + 1]} - ${med[1]}" | bc -l)"
  if ((json_at > 14)); then
    printf 'JDK 25: status %.2fx, path %.2fx its java -version.\n' "$(ratio "${med[14]}" "${med[16]}")" "$(ratio "${med[15]}" "${med[16]}")"
  fi
} | tee "$out/startup.md"
# the chart: median wall before and after, the JVM floor and the 3x target as lines
tsv="$out/startup.tsv"
{ echo -e "command\tbefore\tafter\tfloor"
  echo -e "vsm status\t${med[0]}\t${med[1]}\t${med[11]}"
  echo -e "vsm path\t${med[3]}\t${med[4]}\t${med[13]}"
  echo -e "status, 1 dir storage\t${med[6]}\t${med[8]}\t${med[11]}"
  echo -e "status, 50 dir storages\t${med[7]}\t${med[9]}\t${med[12]}"; } >"$tsv"
gnuplot <<GP
set terminal svg size 760,380 dynamic font "sans,11" noenhanced
set output "$out/startup.svg"
set title "vsm start-up, median wall of $runs interleaved runs (load $(cut -d' ' -f1 /proc/loadavg))"
set datafile separator "\t"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set key top left font ",9"
set grid ytics
set ylabel "seconds"
set yrange [0:*]
set arrow from graph 0, first ${med[5]} to graph 1, first ${med[5]} nohead lw 2 lc rgb "#303030"
set label "java -version" at graph 0.01, first ${med[5]} left offset 0,0.6 font ",9"
set arrow from graph 0, first 3 * ${med[5]} to graph 1, first 3 * ${med[5]} nohead dt 2 lw 2 lc rgb "#c03030"
set label "target: 3x" at graph 0.01, first 3 * ${med[5]} left offset 0,0.6 font ",9" tc rgb "#c03030"
plot "$tsv" skip 1 using 2:xtic(1) title "before ($baseline)" lc rgb "#b0b0b0", \\
     "" skip 1 using 3 title "after" lc rgb "#2a6fb0", \\
     "" skip 1 using 4 title "StatusFloor (vsm's libraries and contracts, nothing else)" lc rgb "#60a060"
GP
echo "chart: $out/startup.svg" >&2
