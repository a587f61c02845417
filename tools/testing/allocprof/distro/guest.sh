# SPDX-License-Identifier: GPL-2.0
# Guest script of "make distro" (distro.sh boots it through ../qemu-run.sh).
# The kernel command line's distro_mode= says what to do:
#   series   the series kernel booted with profiling on: devices, module
#            set, memory figures, read cost of /proc/allocinfo, then the
#            existing guest checks (allocinfo.sh, modules.sh) as they are
#   figures  the same without the checks (the series kernel booted =0)
#   compare  a comparison kernel (no modules): devices, figures, read cost
#   switch   as compare, booted =0, then profiling switched on and the
#            figures taken again (S)
#   icount   devices, module set if any, read cost only (booted under
#            -icount shift=0, where 1 ns of guest time is 1 instruction)
# Results are DISTRO-* lines for results.py; checks print PASS:/FAIL:/SKIP:.
# /data holds lib.sh, modules.list, the guest checks, the test modules and,
# for the series kernel, lib/modules/RELEASE with the module set.
. /data/lib.sh
R() { echo "DISTRO-$*"; }
mode=series
for a in $(cat /proc/cmdline); do
	case $a in
	distro_mode=*) mode=${a#distro_mode=} ;;
	esac
done
rel=$(uname -r)
R "MODE $mode"
R "UNAME $rel"
[ -d /data/lib/modules ] && ln -s /data/lib /lib
have_mods=0
[ -f "/lib/modules/$rel/modules.dep" ] && have_mods=1
R "CPUS possible=$(cat /sys/devices/system/cpu/possible) online=$(cat /sys/devices/system/cpu/online) nr=$(grep -c ^processor /proc/cpuinfo)"
R "NUMA nodes=$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
R "PROFILING sysctl=$(cat /proc/sys/vm/mem_profiling 2>/dev/null || echo none)"

# load NAME: modprobe a module of the set; built-in ones are only noted.
load() {
	m=$1
	if [ $have_mods = 0 ]; then
		R "MODULE $m not-loaded (no modules in this boot)"
		return
	fi
	if grep -qE "/($m|$(echo "$m" | tr _ -))\.ko\$" "/lib/modules/$rel/modules.builtin"; then
		R "MODULE $m builtin"
	elif modprobe "$m" 2>/tmp/modprobe.err; then
		R "MODULE $m loaded"
	else
		R "MODULE $m failed: $(head -1 /tmp/modprobe.err)"
	fi
}

# The disks by label (made by distro.sh): ext4, xfs, btrfs.
disk() { findfs "LABEL=$1" 2>/dev/null; }
mountfs() { # mountfs TYPE LABEL DIR
	d=$(disk "$2")
	mkdir -p "$3"
	if [ -n "$d" ] && mount -t "$1" "$d" "$3" 2>/tmp/mount.err; then
		dd if=/dev/zero of="$3/file" bs=1M count=16 2>/dev/null
		mkdir -p "$3/dir" && i=0 && while [ $i -lt 200 ]; do
			echo $i >"$3/dir/f$i"; i=$((i + 1))
		done
		sync
		R "MOUNT $1 $d ok"
	else
		R "MOUNT $1 ${d:-nodisk} failed: $(head -1 /tmp/mount.err 2>/dev/null)"
	fi
}

# Let deferred frees (RCU, workqueues) run and drop the page cache, so that
# every boot's snapshot is taken in the same state.
settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 5
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
}

# snap TAG: memory now; sites of /proc/allocinfo, vmlinux and modules.
snap() {
	for k in MemTotal MemFree MemAvailable Buffers Cached Shmem AnonPages \
		Slab SReclaimable SUnreclaim \
		KernelStack PageTables Percpu VmallocUsed; do
		R "MEM $1 $k=$(awk -v k="$k:" '$1 == k {print $2}' /proc/meminfo)"
	done
	if [ -r /proc/allocinfo ]; then
		sed 1,2d /proc/allocinfo >/tmp/ai
		total=$(wc -l </tmp/ai)
		mods=$(grep -c ' \[[^] ]*\] func:' /tmp/ai)
		nz=$(awk '$1 > 0' /tmp/ai | wc -l)
		bytes=$(awk '{s += $1} END {printf "%d", s}' /tmp/ai)
		R "SITES $1 total=$total vmlinux=$((total - mods)) modules=$mods nonzero=$nz bytes=$bytes"
		# Sites per module, the largest first.
		sed -n 's/.* \[\([^] ]*\)\] func:.*/\1/p' /tmp/ai | sort | uniq -c |
			sort -rn | head -15 | while read -r n m; do R "MODSITES $1 $m=$n"; done
		# Sites that allocate profiling's (or page_ext's) own data.
		grep -E 'obj_exts|slab_cgroups|page_ext|alloc_tag|codetag' /tmp/ai |
			while IFS= read -r l; do R "AISITE $1 $l"; done
	fi
	R "LSMOD $1 $(lsmod 2>/dev/null | sed 1d | wc -l)"
}

# now_ns: the guest clock in ns (busybox date has no %N; timer_list does).
now_ns() { sed -n '/^now at/{s/^now at \([0-9]*\) nsecs$/\1/p;q}' /proc/timer_list; }

# readcost N: N reads of /proc/allocinfo by one cat, five times, less the
# cost of a cat of nothing (process start and the clock reads).
readcost() {
	n=$1
	[ -r /proc/allocinfo ] || { R "READ none"; return; }
	args=""
	i=0
	while [ $i -lt "$n" ]; do args="$args /proc/allocinfo"; i=$((i + 1)); done
	for round in 1 2 3 4 5; do
		e0=$(now_ns); cat /dev/null >/dev/null; e1=$(now_ns)
		# shellcheck disable=SC2086
		t0=$(now_ns); cat $args >/dev/null; t1=$(now_ns)
		R "READ round=$round reads=$n total_ns=$((t1 - t0)) empty_ns=$((e1 - e0)) ns_per_read=$(((t1 - t0 - (e1 - e0)) / n)) lines=$(wc -l </proc/allocinfo) bytes=$(wc -c </proc/allocinfo)"
	done
}

kernel_lines() {
	dmesg | grep -E 'alloc_tag|allocinfo|page_ext|Memory: [0-9]|percpu: Embedded|codetag' |
		grep -vE 'alloc_tag: +[0-9]+ +[0-9]+ ' | sed 's/^\[[ 0-9.]*\] *//' |
		while IFS= read -r l; do R "DMESG $l"; done
}

# Devices first (on the comparison kernels they are built in).
for m in virtio_pci virtio_blk virtio_net; do load "$m"; done
sleep 2
R "VIRTIO $(ls /sys/bus/virtio/devices 2>/dev/null | wc -l) devices; disks: $(ls /sys/block 2>/dev/null | grep -c vd)"
mountfs ext4 dext4 /mnt/ext4
ip link set eth0 up 2>/dev/null && ip addr add 10.0.2.15/24 dev eth0 2>/dev/null
R "NET $(ip -o link 2>/dev/null | grep -c 'eth0')"

[ "$mode" = switch ] && mode=compare switch=1
if [ "$mode" != compare ]; then
	settle
	[ "$mode" = icount ] || snap A
	# The module set, then use some of it.
	for m in $(sed 's/#.*//' /data/modules.list); do load "$m"; done
	mountfs xfs dxfs /mnt/xfs
	mountfs btrfs dbtrfs /mnt/btrfs
	mkdir -p /mnt/ext4/lower /mnt/ext4/upper /mnt/ext4/work /mnt/ovl
	mount -t overlay overlay -o lowerdir=/mnt/ext4/lower,upperdir=/mnt/ext4/upper,workdir=/mnt/ext4/work /mnt/ovl 2>/dev/null &&
		echo x >/mnt/ovl/x && R "MOUNT overlay ok" || R "MOUNT overlay failed"
	losetup /dev/loop0 /mnt/ext4/file 2>/dev/null && R "LOOP ok" || R "LOOP failed"
	brctl addbr br0 2>/dev/null && ip link set br0 up && R "BRIDGE ok" || R "BRIDGE failed"
	tunctl -t tap0 >/dev/null 2>&1 && brctl addif br0 tap0 2>/dev/null && R "TAP ok" || R "TAP failed"
fi
settle
tag=B
[ "$mode" = compare ] && tag=A
if [ "$mode" != icount ]; then
	snap $tag
	# show_mem() prints profiling's metadata now, module tags included.
	echo m >/proc/sysrq-trigger
	R "SYSRQM $(dmesg | grep 'alloc_tag: metadata:' | tail -1 | sed 's/^\[[ 0-9.]*\] *//')"
	kernel_lines
fi
if [ "${switch:-0}" = 1 ]; then
	echo 1 >/proc/sys/vm/mem_profiling && R "SWITCH ok" || R "SWITCH failed"
	settle
	snap S
	echo m >/proc/sysrq-trigger
	R "SYSRQM-S $(dmesg | grep 'alloc_tag: metadata:' | tail -1 | sed 's/^\[[ 0-9.]*\] *//')"
	kernel_lines
fi
readcost 20

if [ "$mode" = series ]; then
	# The existing checks, as they are; each exits with its status.
	sh /data/allocinfo.sh || FAILED=1
	sh /data/modules.sh || FAILED=1
fi
R "DONE"
exit $FAILED
