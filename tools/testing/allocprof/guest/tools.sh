# SPDX-License-Identifier: GPL-2.0
# Tools nobody here wrote, against a profiling kernel: stress-ng's memory
# and vm stressors with its procfs stressor beside them, then trinity with
# a fixed seed and a bounded count of calls, as nobody and as root, while
# vm.mem_profiling flips.  The root run's victims are the switch, the
# allocinfo file and the capture files.  Pass: the guest lives, no splat
# (the host checks the console), a quiescent test module's site still
# exact and no site below zero afterwards.
# Debian's binaries and their libraries come in /data/userland (bin, lib),
# run through the dynamic loader, as the busybox guest has no /lib.
# make check's run is bounded; make fuzz sets the sizes below through the
# kernel command line, which hands unknown NAME=VALUE words to init.
. /data/lib.sh
F=/proc/allocinfo
SYS=/proc/sys/vm/mem_profiling
U=/data/userland
SEED=${TRINITY_SEED:-20261204}
CALLS=${TRINITY_CALLS:-20000}
ROOT_CALLS=${TRINITY_ROOT_CALLS:-5000}
ROOT_SECONDS=${TRINITY_ROOT_SECONDS:-240}
STRESS_SECONDS=${STRESS_SECONDS:-1}
run() { # run PROG ARGS...: a program of /data/userland
	p=$1; shift
	"$U/lib/ld-linux-x86-64.so.2" --library-path "$U/lib" "$U/bin/$p" "$@"
}
# u64 counters that went below zero print with 20 digits.
no_wrap() {
	! sed 1,2d $F | awk 'length($1) > 15 || length($2) > 15 {print; bad=1} END {exit !bad}'
}
# The test module charges its one kept object to its site at load.
M=allocprof_test
insmod /data/allocprof_holder.ko && insmod /data/$M.ko
l1=$(dmesg | sed -n "s/.*$M: sites \([0-9]*\) .*/\1/p" | tail -1)
s1=$(kmalloc_slot "$(dmesg | sed -n "s/.*$M: sizes \([0-9]*\) .*/\1/p" | tail -1)")
quiet_site() { grep "$M.c:$l1 \[$M\] " $F | awk '{print $1, $2}'; }
check "tools: $M charges its site exactly at load (${s1:-?} bytes)" \
	[ "$(quiet_site)" = "${s1:-none} 1" ]
check "tools: stress-ng runs in the guest" run stress-ng --version
check "tools: trinity runs in the guest" sh -c "$U/lib/ld-linux-x86-64.so.2 --library-path $U/lib $U/bin/trinity --help >/dev/null 2>&1"

# vm.mem_profiling flips every half second until /tmp/stop.
rm -f /tmp/stop
( n=0; while [ ! -e /tmp/stop ]; do
	echo 0 > $SYS; sleep 0.2; echo 1 > $SYS; sleep 0.3
	n=$((n + 1)); done; echo $n > /tmp/flips ) &
flipper=$!

# stress-ng: every stressor of the memory and vm classes in turn, for
# STRESS_SECONDS each, with the procfs stressor reading /proc beside them.
# Left out: the stressors that grow one process until the OOM killer
# comes, and swap (the guest has no swap device).
cd /tmp || exit 1
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
( exec "$U/lib/ld-linux-x86-64.so.2" --library-path "$U/lib" "$U/bin/stress-ng" \
	--procfs 1 --timeout 90s > /tmp/procfs.log 2>&1 ) &
procfs=$!
t0=$(cut -d. -f1 /proc/uptime)
run stress-ng --class memory,vm --sequential 1 --timeout "${STRESS_SECONDS}s" \
	--exclude bigheap,brk,mmapfork,stack,stackmmap,mlockmany,swap \
	--oomable --metrics-brief > /tmp/stress-ng.log 2>&1
rc=$?
t1=$(cut -d. -f1 /proc/uptime)
wait $procfs
grep -E 'fail|error|skipp' /tmp/stress-ng.log | head -20
tail -2 /tmp/stress-ng.log
echo "stress-ng: status $rc, $((t1 - t0)) s"
# Status 3: some stressors skipped themselves for want of a kernel
# feature (userfaultfd, membarrier, NUMA); each failure is status 2.
check "stress-ng: memory and vm classes ran (status $rc)" \
	sh -c "[ $rc = 0 -o $rc = 3 ] && grep -q '] successful run completed' /tmp/stress-ng.log"
tail -1 /tmp/procfs.log
check "stress-ng: the procfs stressor ran 90 s beside them" \
	grep -q '] successful run completed' /tmp/procfs.log

# trinity as nobody: a fixed seed, CALLS system calls, logging off.
chmod 1777 /tmp
echo "trinity: seed $SEED, $CALLS calls as nobody"
timeout 900 su nobody -s /bin/sh -c "cd /tmp && exec $U/lib/ld-linux-x86-64.so.2 --library-path $U/lib \
 \
	$U/bin/trinity -q -l off -C 2 -s $SEED -N $CALLS --disable-fds=sockets" > /tmp/trinity-nobody.log 2>&1
rc=$?
tail -3 /tmp/trinity-nobody.log
check "trinity: $CALLS calls as nobody (status $rc)" [ "$rc" = 0 ]

# trinity as root, its victims the switch and the allocinfo files, bound
# into one directory (it takes one victim path).  What would end the
# guest is left out.  As root, trinity's own children die often (a divide
# error in trinity) and are started again, so the run is bounded in time
# too: it passes if the guest lives and no task is left blocked in the
# kernel.
V=/tmp/victims
mkdir -p $V
for f in $SYS $F /sys/kernel/debug/allocinfo/*; do
	[ -e "$f" ] || continue
	b=$V/$(echo "$f" | tr / _)
	: > "$b" && mount -o bind "$f" "$b"
done
ls $V
echo "trinity: seed $SEED, $ROOT_CALLS calls or $ROOT_SECONDS s as root, victims in $V"
timeout $ROOT_SECONDS "$U/lib/ld-linux-x86-64.so.2" --library-path "$U/lib" "$U/bin/trinity" \
	-q -l off -C 2 -s $SEED -N $ROOT_CALLS --disable-fds=sockets \
	--dangerous -V $V -x reboot -x kexec_load -x init_module \
	-x finit_module -x delete_module -x swapon -x swapoff -x mount \
	-x umount -x oldumount -x pivot_root -x chroot -x setns -x unshare \
	> /tmp/trinity-root.log 2>&1
rc=$?
tail -3 /tmp/trinity-root.log
for p in /proc/[0-9]*; do
	case $(cat $p/comm 2>/dev/null) in
	trinity*) kill -9 ${p#/proc/} 2>/dev/null ;;
	esac
done
sleep 5
# In D state at each of three looks, 2 s apart: blocked, not passing by.
dstate() {
	for p in /proc/[0-9]*; do
		awk '{ sub(/.*\) /, ""); if ($1 == "D") print FILENAME }' $p/stat 2>/dev/null
	done | sed 's|/proc/||; s|/stat||' | sort
}
dstate > /tmp/d1; sleep 2; dstate > /tmp/d2; sleep 2; dstate > /tmp/d3
blocked=$(awk 'FILENAME == ARGV[1] { a[$0] = 1; next }
	FILENAME == ARGV[2] { if (a[$0]) b[$0] = 1; next }
	b[$0] { printf "%s ", $0 }' /tmp/d1 /tmp/d2 /tmp/d3)
[ -n "$blocked" ] && echo w > /proc/sysrq-trigger
check "trinity: as root, $ROOT_CALLS calls or $ROOT_SECONDS s, the guest lives (status $rc)" \
	[ "$rc" = 0 -o "$rc" = 124 -o "$rc" = 143 ]
check "trinity: no task left blocked in the kernel (${blocked:-none})" [ -z "$blocked" ]
for b in $V/*; do umount "$b" 2>/dev/null; done

: > /tmp/stop
wait $flipper
echo 1 > $SYS
echo "vm.mem_profiling flipped $(cat /tmp/flips) times"
check "tools: vm.mem_profiling flipped throughout" [ "$(cat /tmp/flips)" -gt 10 ]
check "tools: $M's site still exact afterwards" [ "$(quiet_site)" = "${s1:-none} 1" ]
check "tools: no counter negative or wrapped" no_wrap
rmmod $M
check "tools: $M's site gone with the module" [ -z "$(quiet_site)" ]
exit $FAILED
