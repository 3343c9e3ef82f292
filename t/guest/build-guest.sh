#!/usr/bin/env bash
# Prepares the qemu guest that the device-mapper tests run in: Debian's own kernel (the package
# apt-cache names as linux-image-amd64's dependency, fetched with apt-get download, never installed)
# and an initramfs of busybox-static that loads the device-mapper, loop, 9p, virtio, overlay and
# ext4 modules, mounts the host's / read-only over 9p with a tmpfs overlay on top, and hands over to the
# per-boot script on a second, writable 9p share (see init below).
#
# Everything goes into a cache directory that survives between runs ($VSM_GUEST_CACHE, default
# /var/cache/vsm-guest): <kernel version>/{vmlinuz,initramfs.cpio.gz}. A run with the cache in place
# only prints its directory. Prints the directory on stdout; needs root, busybox-static, kmod and
# apt-get (with network access the first time).
set -euo pipefail
cache=${VSM_GUEST_CACHE:-/var/cache/vsm-guest}
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9   # two worktrees building at once wait for each other

pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[^ ]*-amd64\)$/\1/p' | head -n 1)
if [[ -z $pkg ]]; then
  # no package lists yet (a fresh machine): read them once
  apt-get update -qq >&2
  pkg=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[^ ]*-amd64\)$/\1/p' | head -n 1)
fi
[[ -n $pkg ]] || { echo "build-guest: apt-cache names no linux-image-*-amd64 for linux-image-amd64" >&2; exit 1; }
kver=${pkg#linux-image-}
out=$cache/$kver
# only the modules the guest needs (ext4 for the power-cut tests' file system on dm-flakey); a
# cache built with another list is built again
modules=(crc32c_generic libcrc32c dm-mod dm-thin-pool dm-snapshot dm-flakey loop 9p 9pnet_virtio virtio_blk virtio_pci overlay ext4)
if [[ -f $out/vmlinuz && -f $out/initramfs.cpio.gz && $(cat "$out/modules" 2>/dev/null) == "${modules[*]}" ]]; then
  echo "$out"
  exit 0
fi

busybox=/bin/busybox
dpkg-query -W -f '${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' \
  || { echo "build-guest: busybox-static is missing (apt-get install busybox-static)" >&2; exit 1; }
command -v depmod >/dev/null || { echo "build-guest: depmod (kmod) is missing" >&2; exit 1; }

work=$(mktemp -d "$cache/.build-XXXXXX")
chmod 755 "$work"   # apt-get download drops privileges to _apt to write here
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -q "$pkg" >&2)
dpkg-deb -x "$work"/"$pkg"_*.deb "$work/kernel"
depmod -b "$work/kernel" "$kver"

root=$work/initramfs
mkdir -p "$root"/{bin,dev,proc,sys,lower,upper,newroot,lib/modules}
cp "$busybox" "$root/bin/busybox"
for applet in sh mount umount mkdir modprobe switch_root echo cat sleep poweroff; do
  ln -s busybox "$root/bin/$applet"
done
# the modules, with everything they depend on, and the tables modprobe reads
mdir=$work/kernel/lib/modules/$kver
for m in "${modules[@]}"; do
  for f in $(modprobe -d "$work/kernel" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'); do
    rel=${f#"$work/kernel"}
    mkdir -p "$root$(dirname "$rel")"
    cp -n "$f" "$root$rel"
  done
done
cp "$mdir"/modules.{order,builtin,builtin.modinfo} "$root/lib/modules/$kver/" 2>/dev/null || true
depmod -b "$root" "$kver"

cat > "$root/init" <<INIT
#!/bin/sh
# vsm test guest, stage 1: modules, the host's / read-only with a tmpfs overlay, then the
# per-boot script from the writable share (vsmio) as the new root's init.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in ${modules[*]}; do
  modprobe \$m || echo "vsm-guest: modprobe \$m failed"
done
fail() { echo "vsm-guest: \$*"; echo o > /proc/sysrq-trigger; sleep 60; }
mount -t 9p -o trans=virtio,version=9p2000.L,msize=1048576,ro,cache=loose hostroot /lower || fail "cannot mount the host's root"
mount -t tmpfs -o size=75% tmpfs /upper
mkdir -p /upper/data /upper/work
mount -t overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work overlay /newroot || fail "cannot mount the overlay"
mkdir -p /newroot/vsmio
mount -t 9p -o trans=virtio,version=9p2000.L,msize=1048576 vsmio /newroot/vsmio || fail "cannot mount the vsmio share"
[ -f /newroot/vsmio/init ] || fail "no init on the vsmio share"
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
exec switch_root /newroot /bin/sh /vsmio/init
INIT
chmod 755 "$root/init"

mkdir -p "$work/out"
cp "$work/kernel/boot/vmlinuz-$kver" "$work/out/vmlinuz"
(cd "$root" && find . | "$busybox" cpio -o -H newc 2>/dev/null | gzip -1) > "$work/out/initramfs.cpio.gz"
echo "${modules[*]}" > "$work/out/modules"
rm -rf "$out"
mv "$work/out" "$out"
echo "$out"
