#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Workload guest script (QEMU initramfs, see ../../qemu-run.sh): runs the
# static programs copied to /data.  Parameters come from the kernel
# command line (defaults below):
#   wl_run=hackbench,files,forkexec   which workloads, in this order
#   wl_size wl_loops wl_groups wl_fds  wl-hackbench -s -l -g -f (with -P)
#   wl_ipc=pipe|socket|auto            -p or socketpairs; auto: socketpairs
#                                      if the kernel has AF_UNIX
#   wl_fprocs wl_files wl_frounds wl_fbytes   wl-files -j -n -r -b
#   wl_eprocs wl_execs                 wl-forkexec -j -n
#   wl_warm=1                          one small untimed pass of each first
# Output: WL-STATE, WL-FS and one WL-RESULT line per workload; WL-ERROR
# and a non-zero exit status on failure.
wl_run=hackbench,files,forkexec
wl_size=512 wl_loops=10 wl_groups=15 wl_fds=25 wl_ipc=auto
wl_fprocs=2 wl_files=1000 wl_frounds=5 wl_fbytes=4096
wl_eprocs=2 wl_execs=200
wl_warm=1
for a in $(cat /proc/cmdline); do
	case $a in
	wl_*=*) eval "${a%%=*}=${a#*=}" ;;
	esac
done
bin=/data
hbipc= ipc=socket
case $wl_ipc in
pipe) hbipc=-p ipc=pipe ;;
socket) ;;
auto) [ -e /proc/net/unix ] || hbipc=-p ipc=pipe ;;
*) echo "WL-ERROR wl_ipc=$wl_ipc"; exit 2 ;;
esac

echo "WL-STATE kernel=$(uname -r) mem_profiling=$(cat /proc/sys/vm/mem_profiling 2>/dev/null || echo none) cpus=$(grep -c ^processor /proc/cpuinfo) online=$(cat /sys/devices/system/cpu/online) ipc=$ipc nofile=$(ulimit -n)"

# The file storm runs in a tmpfs of its own.  Without CONFIG_SHMEM (as in
# tinyconfig) "tmpfs" is ramfs underneath; the runner reports which.
mkdir -p /tmp/wl
mount -t tmpfs -o mode=0755 tmpfs /tmp/wl || { echo "WL-ERROR mount tmpfs"; exit 1; }
echo "WL-FS $(grep ' /tmp/wl ' /proc/mounts)"

hackbench() {
	$bin/wl-hackbench -s "$wl_size" -l "$1" -g "$wl_groups" -f "$wl_fds" -P $hbipc
}
files() {
	$bin/wl-files -d /tmp/wl -j "$wl_fprocs" -n "$wl_files" -r "$1" -b "$wl_fbytes"
}
forkexec() {
	$bin/wl-forkexec -e $bin/wl-true -j "$wl_eprocs" -n "$1"
}

rc=0
for w in $(echo "$wl_run" | tr , ' '); do
	case $w in
	hackbench) n=$wl_loops ;;
	files) n=$wl_frounds ;;
	forkexec) n=$wl_execs ;;
	*) echo "WL-ERROR unknown workload $w"; exit 2 ;;
	esac
	if [ "$wl_warm" = 1 ]; then
		# Warm-up: slab caches, page cache of the binaries, pid space.
		case $w in
		forkexec) warm=$(( (n + 9) / 10 )) ;;
		*) warm=1 ;;
		esac
		$w "$warm" | sed 's/^WL-RESULT/WL-WARM/' || rc=1
	fi
	$w "$n" || rc=1
done
[ "$rc" = 0 ] || dmesg | tail -n 20
exit $rc
