#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel under QEMU (TCG) with a busybox initramfs, run a guest shell
# script, and exit with that script's exit status.
#
#   qemu-run.sh -k bzImage -s guest.sh [-f FILE]... [-a "kernel args"]
#               [-t TIMEOUT_S] [-c CPUS] [-m MEM_MB] [-l console.log]
#               [-r x86_64|arm64|i386] [-x "extra QEMU arguments"]
#
# -r arm64 boots an arm64 Image on qemu-system-aarch64 -M virt -cpu max
# with the arm64 busybox that "make deps" unpacks into build/busybox-arm64
# (BUSYBOX_ARM64 names another); -r i386 a 32-bit bzImage on
# qemu-system-i386 with build/busybox-i386 (BUSYBOX_I386); the default is
# x86_64 with the host's busybox.  -m takes what QEMU's -m takes ("512,slots=2,maxmem=2G" for
# memory hotplug); -x adds QEMU arguments, split at spaces (a pc-dimm).
# Files given with -f are copied to /data in the guest.  The console is
# printed (and saved with -l).  A guest that panics, or never reports its
# status, ends with exit status 125; one that runs past the timeout is
# killed and ends with 124.  The guest script runs as root with /proc, /sys
# and /dev mounted and PATH set to busybox.
set -u

kernel="" script="" append="" timeout=300 cpus=1 mem=512 log="" arch=x86_64
files=() extra=()
while getopts "k:s:f:a:t:c:m:l:r:x:" o; do
	case $o in
	k) kernel=$OPTARG ;;
	s) script=$OPTARG ;;
	f) files+=("$OPTARG") ;;
	a) append=$OPTARG ;;
	t) timeout=$OPTARG ;;
	c) cpus=$OPTARG ;;
	m) mem=$OPTARG ;;
	l) log=$OPTARG ;;
	r) arch=$OPTARG ;;
	x) read -r -a extra <<<"$OPTARG" ;;
	*) echo "usage: see the head of $0" >&2; exit 2 ;;
	esac
done
[ -f "$kernel" ] || { echo "qemu-run: no kernel '$kernel'" >&2; exit 2; }
[ -f "$script" ] || { echo "qemu-run: no script '$script'" >&2; exit 2; }
case $arch in
x86_64)
	busybox=$(command -v busybox) ||
		{ echo "qemu-run: busybox-static missing" >&2; exit 2; }
	;;
arm64)
	top=$(cd "$(dirname "$0")/../../.." && pwd)
	busybox=${BUSYBOX_ARM64:-$top/build/busybox-arm64/bin/busybox}
	[ -x "$busybox" ] ||
		{ echo "qemu-run: no arm64 busybox at $busybox (make deps)" >&2; exit 2; }
	;;
i386)
	top=$(cd "$(dirname "$0")/../../.." && pwd)
	busybox=${BUSYBOX_I386:-$top/build/busybox-i386/bin/busybox}
	[ -x "$busybox" ] ||
		{ echo "qemu-run: no i386 busybox at $busybox (make deps)" >&2; exit 2; }
	;;
*) echo "qemu-run: -r $arch: only x86_64, arm64 and i386" >&2; exit 2 ;;
esac

tmp=$(mktemp -d /tmp/allocprof-qemu.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,data,etc,root}
cp "$busybox" "$root/bin/busybox"
if [ "$arch" = x86_64 ]; then
	for a in $("$busybox" --list); do
		[ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
	done
else
	# The host cannot run it: it links its applets itself, first thing.
	ln -s busybox "$root/bin/sh"
fi
cp "$script" "$root/test.sh"
for f in "${files[@]}"; do
	cp -r "$f" "$root/data/"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' \
	>"$root/etc/passwd"
printf 'root:x:0:\nnobody:x:65534:\n' >"$root/etc/group"
cat >"$root/init" <<'EOF'
#!/bin/sh
export PATH=/bin:/sbin
[ -e /bin/mount ] || /bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null

mkdir -p /sys/kernel/debug && mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
cd /data
echo
sh /test.sh
echo "ALLOCPROF-GUEST-EXIT=$?"
reboot -f
EOF
chmod +x "$root/init" "$root/test.sh"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$tmp/initrd.gz"

# Several vCPUs run round-robin in one host thread.  Under QEMU 7.2's
# multi-threaded TCG a vCPU once executed an int3 that the jump-label patch
# on the other vCPU had already removed (fatal "int3" oops in the allocator
# while vm.mem_profiling was flipped, stress.sh).  We believe this is the
# emulator's cross-vCPU self-modifying-code handling, not text_poke_bp(),
# but have not proven it; see BENCHMARKS.md/issue notes.
accel=tcg
[ "$cpus" -gt 1 ] && accel=tcg,thread=single

if [ "$arch" = arm64 ]; then
	qemu=(qemu-system-aarch64 -M virt -cpu max) console=ttyAMA0
elif [ "$arch" = i386 ]; then
	qemu=(qemu-system-i386 -cpu max) console=ttyS0
else
	qemu=(qemu-system-x86_64 -cpu max) console=ttyS0
fi

out=$tmp/console.log
timeout --foreground -k 5 "$timeout" \
	"${qemu[@]}" -accel "$accel" -smp "$cpus" -m "$mem" "${extra[@]}" \
	-nographic -no-reboot -monitor none -serial stdio \
	-kernel "$kernel" -initrd "$tmp/initrd.gz" \
	-append "console=$console panic=-1 oops=panic quiet loglevel=4 $append" \
	</dev/null 2>&1 | tr -d '\r' | tee "$out"
qrc=${PIPESTATUS[0]}
[ -n "$log" ] && cp "$out" "$log"
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "qemu-run: guest did not finish within ${timeout}s; killed" >&2
	exit 124
fi
rc=$(sed -n 's/^ALLOCPROF-GUEST-EXIT=\([0-9]*\)$/\1/p' "$out" | tail -n1)
if [ -z "$rc" ]; then
	echo "qemu-run: guest stopped without reporting a status (panic?)" >&2
	exit 125
fi
exit "$rc"
