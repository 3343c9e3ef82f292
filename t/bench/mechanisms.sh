#!/usr/bin/env bash
# What each start-up mechanism saves: `vsm status` and `vsm path` as built, and with one
# mechanism turned off (or a deleted one put back) at a time, interleaved, with the load average.
# A mechanism stays only where it saves at least 15% of status or path (docs/performance.md).
#   t/bench/mechanisms.sh [rounds] [COMMIT | tree:COMMIT]...
# Off alone, on this tree's build:
# - the class-data sharing archive: a copy of cli/vsm that gives java no archive (the JDK's own);
# - the launcher's JVM flags: VSM_JAVA_OPTS=-Xshare:auto (the JVM's defaults; the archive stays);
# - Subcommands (only the named subcommand registered): a copy of the build whose Subcommands
#   registers every one, with a class-data sharing archive of its own, made as the build makes it.
# Put back alone: picocli compiled from its source for Java 17 (a copy of the build with that
# picocli jar, and its own archive); picocli's java.time and java.sql converters left out (its
# system property picocli.converters.excludes, in VSM_JAVA_OPTS); each COMMIT: HEAD with that commit reverted (a deleted
# mechanism back), built in a temporary git worktree; each tree:COMMIT: that commit's tree.
# The saving is how much of the slower time the mechanism takes off; for a variant that puts one
# back, a negative saving is what it would save. Writes t/bench/results/mechanisms.md.
set -euo pipefail
source "$(dirname "$(readlink -f "$0")")/lib.sh"
rounds=${1:-21}
shift $(($# > 0 ? 1 : 0))
out="$root/t/bench/results"; mkdir -p "$out"

sandbox /var/tmp/vsm-bench-mechanisms
(cd "$root" && mvn -B -q -Dstyle.color=never -DskipTests -pl cli -am package >&2)
vsm_sandbox "$sb"
vol=local:100/vm-100-disk-0.qcow2
jdk_version=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p')

# no archive: the launcher with its archive lines taken out
mkdir -p "$sb/nocds/cli"
ln -s "$root/cli/target" "$sb/nocds/cli/target"
sed 's/cds=(-XX:[^)]*)/cds=()/' "$root/cli/vsm" >"$sb/nocds/cli/vsm"
chmod +x "$sb/nocds/cli/vsm"
! grep -q SharedArchiveFile "$sb/nocds/cli/vsm" || { echo "mechanisms.sh: cannot take the archive out of cli/vsm" >&2; exit 1; }

# a copy of the build in $sb/NAME/cli whose jar or libraries the caller then changes, and
# archive_again NAME: the training and the archive as cli/pom.xml runs them, for that copy
copy_build() {
  mkdir -p "$sb/$1/cli/target"
  cp "$root/cli/vsm" "$sb/$1/cli/vsm"
  cp -r "$root/cli/target/vsm-cli.jar" "$root/cli/target/lib" "$sb/$1/cli/target/"
}
archive_again() {
  local t="$sb/$1/cli/target"
  VSM_LOCK_DIR="$sb/$1/locks" java -XX:DumpLoadedClassList="$sb/$1/vsm.classlist" -XX:TieredStopAtLevel=1 \
    -XX:+UseG1GC -Xlog:disable -Xlog:all=error:stderr -cp "$t/vsm-cli.jar" dev.vsm.cli.CdsTraining || true
  java -Xshare:dump -XX:SharedClassListFile="$sb/$1/vsm.classlist" -XX:SharedArchiveFile="$t/vsm-$jdk_version.jsa" \
    -XX:+UseG1GC -Xmx1g -Xlog:disable -Xlog:all=error:stderr -cp "$t/vsm-cli.jar" >/dev/null
}
# every subcommand registered: Subcommands compiled with its one-command branch never taken
copy_build allsub
sed 's/if (named != null \&\& ALL.containsKey(named) \&\& !isHelp(args)) {/if (false) {/' \
  "$root/cli/src/main/java/dev/vsm/cli/Subcommands.java" >"$sb/allsub/Subcommands.java"
grep -q 'if (false)' "$sb/allsub/Subcommands.java" || { echo "mechanisms.sh: cannot patch Subcommands" >&2; exit 1; }
javac -nowarn -d "$sb/allsub/classes" -cp "$sb/allsub/cli/target/vsm-cli.jar" "$sb/allsub/Subcommands.java"
jar --update --file "$sb/allsub/cli/target/vsm-cli.jar" -C "$sb/allsub/classes" .
archive_again allsub
# picocli compiled from its source for Java 17, in place of its jar (Java 5 class files)
copy_build picocli
picocli_jar=$(cd "$sb/picocli/cli/target/lib" && ls picocli-*.jar)
picocli_version=${picocli_jar#picocli-}; picocli_version=${picocli_version%.jar}
sources="$HOME/.m2/repository/info/picocli/picocli/$picocli_version/picocli-$picocli_version-sources.jar"
[[ -f $sources ]] || mvn -B -q dependency:get -Dartifact="info.picocli:picocli:$picocli_version:jar:sources" >&2
mkdir -p "$sb/picocli/src" "$sb/picocli/classes"
(cd "$sb/picocli/src" && jar -xf "$sources")
javac --release 17 -nowarn -XDsuppressNotes -encoding UTF-8 -d "$sb/picocli/classes" "$sb/picocli/src/picocli/CommandLine.java"
jar --create --file "$sb/picocli/cli/target/lib/$picocli_jar" -C "$sb/picocli/classes" .
archive_again picocli

# picocli's java.time and java.sql converters left out
printf '#!/bin/bash\nVSM_JAVA_OPTS="%s -Dpicocli.converters.excludes=java\\.time\\..*,java\\.sql\\..*" exec %s "$@"\n' \
  "$(launcher_flags cds_flags)" "$vsm" >"$sb/converters"
chmod +x "$sb/converters"

names=("as built" "no class-data sharing archive" "no launcher JVM flags" "every subcommand registered"
       "put back: picocli compiled for Java 17" "put back: picocli's java.time and java.sql converters left out")
commands=("$vsm" "$sb/nocds/cli/vsm" "env VSM_JAVA_OPTS=-Xshare:auto $vsm" "$sb/allsub/cli/vsm" "$sb/picocli/cli/vsm"
          "$sb/converters")
n=0
for spec in "$@"; do
  n=$((n + 1)); dir="$sb/v$n"
  if [[ $spec == tree:* ]]; then
    # --no-same-permissions: git archive writes directories group-writable, which a tar run as
    # root keeps, and vsm then refuses its training's lock directory inside them
    git -C "$root" archive "${spec#tree:}" | tar -x --no-same-permissions -C "$sb" --one-top-level="v$n"
    names+=("the tree of ${spec#tree:}")
  else
    git -C "$root" worktree add -q --detach "$dir" HEAD
    at_exit "git -C '$root' worktree remove --force '$dir'"
    git -C "$dir" -c user.name=bench -c user.email=bench@localhost revert --no-edit "$spec" >/dev/null
    names+=("put back: $(git -C "$root" log -1 --format=%s "$spec" | cut -c1-60) ($spec reverted)")
  fi
  echo "building $spec in $dir ..." >&2
  (cd "$dir" && mvn -B -q -Dstyle.color=never -DskipTests -Dspotless.check.skip=true -pl cli -am package >&2)
  commands+=("$dir/cli/vsm")
done
for c in "${commands[@]}"; do $c status >/dev/null; $c path "$vol" >/dev/null; done
for ((r = 0; r < rounds + 2; r++)); do   # the first two rounds warm the page cache and are dropped
  for i in "${!commands[@]}"; do
    for cmd in status path; do
      [[ $cmd == path ]] && arg=$vol || arg=
      t0=$EPOCHREALTIME
      # shellcheck disable=SC2086 # a command line: its words
      ${commands[$i]} $cmd $arg >/dev/null 2>&1
      t1=$EPOCHREALTIME
      awk -v i="$i" -v c="$cmd" -v a="${t0/,/.}" -v b="${t1/,/.}" 'BEGIN {printf "%s %s %.4f\n", i, c, b - a}' >>"$sb/times"
    done
  done
  ((r == 1)) && : >"$sb/times"
done
med() { awk -v i="$1" -v c="$2" '$1 == i && $2 == c {print $3}' "$sb/times" | median; }
spread() { awk -v i="$1" -v c="$2" '$1 == i && $2 == c {print $3}' "$sb/times" | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.3f–%.3f", lo, hi}'; }
{
  echo "\`vsm status\` and \`vsm path\` with each start-up mechanism off alone, wall time, medians (and ranges) of $rounds interleaved rounds; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(date -u +%Y-%m-%d). The saving: how much of the slower time the mechanism takes off."
  echo
  echo "| variant | status | path | status saving | path saving |"
  echo "|---|---|---|---|---|"
  s0=$(med 0 status); p0=$(med 0 path)
  for i in "${!names[@]}"; do
    s=$(med "$i" status); p=$(med "$i" path)
    printf '| %s | %.3f s (%s) | %.3f s (%s) | %.0f%% | %.0f%% |\n' "${names[$i]}" "$s" "$(spread "$i" status)" "$p" "$(spread "$i" path)" \
      "$(echo "100 * ($s - $s0) / $s" | bc -l)" "$(echo "100 * ($p - $p0) / $p" | bc -l)"
  done
} | tee "$out/mechanisms.md"
