# SPDX-License-Identifier: GPL-2.0
# Guest script of "distro.sh owner" (issue 36 item 3): the page totals of
# /proc/allocinfo against page_owner's, on build/distro-owner booted with
# page_owner=on and sysctl.vm.mem_profiling=1.  A real workload first: the
# module set loaded (and some of it unloaded and loaded again), ext4, xfs,
# btrfs and an overlay mounted, files copied between them, and a
# compile-like load of many short processes that read small files and
# write others.  Then, with the system quiet, /proc/allocinfo, page_owner
# grouped by stack (bytes, blocks, the stack's frames), /proc/allocinfo
# again and meminfo go as a tar to the fourth disk, which distro.sh reads
# back; owner.py compares them on the host.
. /data/lib.sh
[ -d /data/lib/modules ] && ln -s /data/lib /lib
mount -t debugfs none /sys/kernel/debug 2>/dev/null
PO=/sys/kernel/debug/page_owner
check "page_owner is on" sh -c "head -c 1 $PO | grep -q P"
check "profiling is on" [ "$(sysctl_val)" = 1 ]

for m in $(sed 's/#.*//' /data/modules.list); do modprobe "$m" 2>/dev/null; done
echo "modules loaded: $(lsmod | sed 1d | wc -l)"
disk() { findfs "LABEL=$1" 2>/dev/null; }
n=0
for fs in ext4:dext4 xfs:dxfs btrfs:dbtrfs; do
	mkdir -p /mnt/${fs%%:*}
	mount -t ${fs%%:*} "$(disk ${fs#*:})" /mnt/${fs%%:*} && n=$((n + 1))
done
check "ext4, xfs and btrfs mounted" [ $n = 3 ]
mkdir -p /mnt/ext4/lower /mnt/ext4/upper /mnt/ext4/work /mnt/ovl
mount -t overlay overlay -o lowerdir=/mnt/ext4/lower,upperdir=/mnt/ext4/upper,workdir=/mnt/ext4/work /mnt/ovl
check "overlay mounted" grep -q ' /mnt/ovl overlay ' /proc/mounts

# File copies: a tree of real files (the module set) and a large file,
# from one file system to the next, each copy read back.
t0=$(date +%s)
for i in 1 2 3 4; do cp -a /data/lib/modules /mnt/ext4/src$i; done
mkdir /mnt/ext4/src && mv /mnt/ext4/src? /mnt/ext4/src/
dd if=/dev/urandom of=/mnt/ext4/big bs=1M count=128 2>/dev/null
for d in xfs btrfs ovl; do
	cp -a /mnt/ext4/src /mnt/$d/src && cp /mnt/ext4/big /mnt/$d/big
	find /mnt/$d/src -type f -exec cat {} + | md5sum >/dev/null
done
sync
echo "copies: $(du -sm /mnt/ext4/src | cut -f1) MB tree and 128 MB file to 3 file systems in $(($(date +%s) - t0)) s"

# Compile-like: for each file of the tree, a process reads it and writes an
# object beside it, two at a time; objects are then "linked" (concatenated),
# half are removed, and the build is done once more on another file system.
build() { # build DIR
	find "$1/src" -name '*.ko' >/tmp/list
	awk 'NR % 2' /tmp/list >/tmp/part.aa
	awk '!(NR % 2)' /tmp/list >/tmp/part.ab
	for p in /tmp/part.aa /tmp/part.ab; do
		(while read -r f; do
			gzip -c "$f" >"$f.o" && md5sum "$f.o" >"$f.d"
		done <$p) &
	done
	wait
	find "$1/src" -name '*.o' | sort | xargs cat >"$1/vmlinux.out"
	find "$1/src" -name '*.d' | awk 'NR % 2' | xargs rm -f
}
t0=$(date +%s)
build /mnt/ext4
build /mnt/xfs
build /mnt/btrfs
echo "builds: $(wc -l </tmp/list) objects x 3 in $(($(date +%s) - t0)) s"

# Module cycles: some of the set unloaded and loaded again.
for _ in 1 2 3; do
	for m in vxlan wireguard bonding zram tcp_bbr; do modprobe -r "$m" 2>/dev/null; done
	for m in vxlan wireguard bonding zram tcp_bbr; do modprobe "$m" 2>/dev/null; done
done
check "module set reloaded" grep -q '^wireguard ' /proc/modules

# Quiet: writeback done, deferred frees (RCU, workqueues) run.  Page cache
# is kept: it is most of the pages a real host has.
sync
sleep 10
mkdir -p /tmp/out
cat /proc/meminfo >/tmp/out/meminfo
cat /proc/modules >/tmp/out/modules
cat /proc/allocinfo >/tmp/out/allocinfo.before
t0=$(date +%s)
# One line per distinct stack: bytes, blocks, then the frames, "|"-joined.
# allocinfo.during is read as the last record has been: the pages of awk,
# of the shell and of the files above are then in both.
# page_owner returns one record per read and fails one that does not fit
# the reader's buffer (ENOMEM): dd reads it a page at a time.
dd if=$PO bs=4096 2>/tmp/dd.err | awk '
/^Page allocated via order / {
	o = $5; sub(/,/, "", o); n = 4096; while (o-- > 0) n *= 2; key = ""; next
}
/^ / { sub(/^ +/, ""); key = key "|" $0; next }
/^$/ { if (key != "") { b[key] += n; c[key]++ }; key = ""; next }
END {
	for (k in b) printf "%d %d %s\n", b[k], c[k], k
	system("cat /proc/allocinfo >/tmp/out/allocinfo.during")
}
' >/tmp/out/page_owner
cat /proc/allocinfo >/tmp/out/allocinfo.after
cat /proc/meminfo >/tmp/out/meminfo.after
# Profiling's own metadata, which no call site is charged with.
echo m >/proc/sysrq-trigger
dmesg | grep 'alloc_tag: metadata:' | tail -1 >/tmp/out/metadata
echo "page_owner: $(wc -l </tmp/out/page_owner) stacks, $(awk '{s += $1} END {printf "%d", s / 1048576}' /tmp/out/page_owner) MB in $(($(date +%s) - t0)) s"
check "page_owner read" [ -s /tmp/out/page_owner ]
check "page_owner read to the end (dd: $(grep -v records /tmp/dd.err | head -1))" \
	[ -z "$(grep -v records /tmp/dd.err)" ]
# The fourth disk (after ext4, xfs, btrfs) is distro.sh's blank one.
out=/dev/vdd
if blkid $out >/dev/null 2>&1; then
	fail "$out is not the blank results disk"
else
	check "results written to $out" tar -cf $out -C /tmp/out .
fi
sync
check "no oops, BUG or WARNING in the log" \
	[ -z "$(dmesg | grep -E 'Oops|BUG:|WARNING:|Call Trace')" ]
[ "$FAILED" = 0 ]
