# Helpers shared by the benchmarks under t/bench (sourced, not run).
# Each script measures vsm and its baseline side by side in one run and prints medians and ratios.

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
vsm="$root/cli/vsm"

# Commands run at exit, last registered first (unmount before removing the directory).
_cleanups=()
at_exit() { _cleanups=("$*" "${_cleanups[@]}"); }
_run_cleanups() { local c; for c in "${_cleanups[@]}"; do eval "$c" || true; done; }
trap _run_cleanups EXIT

# need TOOL PACKAGE: installs PACKAGE with apt-get when TOOL is missing and we are root.
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "installing $2 for $1" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1 ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null; }
  fi
  command -v "$1" >/dev/null 2>&1 || { echo "$(basename "$0"): needs $1 (apt-get install $2)" >&2; exit 1; }
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
now() { date +%s.%N; }
# seconds one command takes (its output discarded)
timed() { local t0 t1; t0=$(now); "$@" >/dev/null; t1=$(now); echo "$t1 - $t0" | bc -l; }
# bytes allocated on the host (st_blocks * block size)
allocated() { local b; b=($(stat -L -c '%b %B' "$1")); echo $((b[0] * b[1])); }
ratio() { echo "scale=6; $1 / $2" | bc -l; }

# launcher_flags cds_flags|aot_flags: the JVM flags cli/vsm gives java (its defaults for
# $VSM_JAVA_OPTS: with the class-data sharing archive, and on JDK 25 with the AOT cache), for a
# baseline run the same way.
launcher_flags() {
  local f; f=$(sed -n "s/^$1=\"\(.*\)\"\$/\1/p" "$root/cli/vsm")
  [[ -n $f ]] || { echo "$(basename "$0"): cannot read $1 from cli/vsm" >&2; exit 1; }
  echo "$f"
}

# status_floor DIR TRAINING...: builds StatusFloor (next to this script) in DIR and sets $floor to
# the command that runs it with the launcher's flags and a class-data sharing archive of its own,
# made as the build makes vsm's: a class list from its training runs (each TRAINING one
# argument string), dumped into one static archive for G1 and the launcher's heap limit.
status_floor() {
  local dir=$1 training cp; shift
  mkdir -p "$dir/classes"
  javac -nowarn -d "$dir/classes" -cp "$root/cli/target/vsm-cli.jar" "$root/t/bench/StatusFloor.java"
  jar --create --file "$dir/floor.jar" -C "$dir/classes" .
  cp="$dir/floor.jar:$root/cli/target/vsm-cli.jar"
  for training in "$@"; do
    # shellcheck disable=SC2086 # the training's arguments are words
    java -XX:DumpLoadedClassList="$dir/part.classlist" -XX:TieredStopAtLevel=1 -XX:+UseG1GC -cp "$cp" StatusFloor $training >/dev/null
    cat "$dir/part.classlist" >>"$dir/floor.classlist"
  done
  java -Xshare:dump -XX:SharedClassListFile="$dir/floor.classlist" -XX:SharedArchiveFile="$dir/floor.jsa" \
    -XX:+UseG1GC -Xmx1g -Xlog:disable -Xlog:all=error:stderr -cp "$cp" >/dev/null
  floor="java $(launcher_flags cds_flags) -XX:SharedArchiveFile=$dir/floor.jsa -Xlog:disable -Xlog:all=warning:stderr -cp $cp StatusFloor"
}

# (These two set a variable rather than print: a cleanup registered in a $(...) subshell would
# be lost.)

# sandbox DIR-PREFIX: sets $sb to a new temp dir, removed at exit (immutable flags of vsm base
# volumes cleared first).
sandbox() {
  sb=$(mktemp -d "${1:-/var/tmp/vsm-bench}.XXXXXX")
  at_exit "chattr -R -f -i '$sb' 2>/dev/null; rm -rf '$sb'"
}

# loop_ext4 DIR SIZE: mounts a new sparse ext4 of SIZE at DIR/mnt, unmounted at exit (root only).
loop_ext4() {
  [[ $(id -u) -eq 0 ]] || { echo "$(basename "$0"): needs root for a loop-mounted file system" >&2; exit 1; }
  truncate -s "$2" "$1/fs.img"
  mkfs.ext4 -q -F "$1/fs.img"
  mkdir -p "$1/mnt"
  mount -o loop "$1/fs.img" "$1/mnt"
  at_exit "umount '$1/mnt'"
}

# direct_io_dir DIR SIZE: sets $work to a directory under DIR where qemu can open files with
# cache=none (O_DIRECT) and aio=native: DIR itself, or when its file system cannot (tmpfs,
# overlayfs) a loop-mounted ext4 of SIZE under DIR.
direct_io_dir() {
  local probe="$1/.probe.raw"
  qemu-img create -q -f raw "$probe" 1M
  if qemu-img bench -q -w -t none -i native -c 1 -f raw "$probe" >/dev/null 2>&1; then
    rm -f "$probe"; work=$1; return
  fi
  rm -f "$probe"
  loop_ext4 "$1" "$2"
  echo "loop-mounted ext4 at $1/mnt (O_DIRECT unsupported in $1)" >&2
  work="$1/mnt"
}

# A vsm sandbox: its own config, data home and locks, so a benchmark never touches the machine's.
# $VSM_CONFIG must name a file that exists; this one holds what the built-in default is.
vsm_sandbox() { # dir
  export VSM_CONFIG="$1/etc/storage.yaml" VSM_LOCK_DIR="$1/locks" XDG_DATA_HOME="$1/data"
  mkdir -p "$1/etc"
  [[ -f $VSM_CONFIG ]] || printf 'storages:\n  local:\n    type: dir\n    path: %s\n    content: [images, rootdir, iso, vztmpl, backup, snippets, import]\n' \
    "$XDG_DATA_HOME/vsm/local" >"$VSM_CONFIG"
}

# listing_images STORE N: N/2 plain 4G qcow2 images over 50 VMs, 10 bases, and N/2 linked clones of
# them (made as vsm clone makes them) under STORE/images, as listing.sh and api.sh list them. Each
# kind is made once by qemu-img (metadata preallocated) and copied (sparse, byte for byte): one
# qemu-img per image took 12 minutes for 2,000 on a loaded machine.
listing_images() {
  local i b vmid base first=() copies=()
  for ((b = 0; b < 10; b++)); do
    mkdir -p "$1/images/$((100 + b))"
    qemu-img create -q -f qcow2 -o preallocation=metadata "$1/images/$((100 + b))/base-$((100 + b))-disk-0.qcow2" 8G
  done
  for ((i = 0; i < $2 / 2; i++)); do
    vmid=$((1000 + i % 50)); mkdir -p "$1/images/$vmid"
    if ((i == 0)); then
      qemu-img create -q -f qcow2 -o preallocation=metadata "$1/images/$vmid/vm-$vmid-disk-0.qcow2" 4G
    else
      copies+=("$1/images/1000/vm-1000-disk-0.qcow2" "$1/images/$vmid/vm-$vmid-disk-$((i / 50)).qcow2")
    fi
    # clone i of base i % 10, in a directory of its own vmid: the first of each base made by qemu-img
    base=$((100 + i % 10)); vmid=$((2000 + i / 10)); mkdir -p "$1/images/$vmid"
    if ((i < 10)); then
      (cd "$1/images/$vmid" && qemu-img create -q -f qcow2 -F qcow2 -b "../$base/base-$base-disk-0.qcow2" \
        -o extended_l2=on,cluster_size=128k,preallocation=metadata "vm-$vmid-disk-$((i % 10)).qcow2")
      first+=("$1/images/$vmid/vm-$vmid-disk-$((i % 10)).qcow2")
    else
      copies+=("${first[i % 10]}" "$1/images/$vmid/vm-$vmid-disk-$((i % 10)).qcow2")
    fi
  done
  ((${#copies[@]} == 0)) || printf '%s\0' "${copies[@]}" | xargs -0 -n 2 -P 2 cp --sparse=always
  sync # ext4 allocates at writeback: the copies' allocated bytes settle before anything lists them
}
