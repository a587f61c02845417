#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Diagnostic guest script: the workloads of guest.sh (same wl_* kernel
# command line parameters), each preceded and followed by a reading of
# the context switch count (/proc/stat ctxt) and, where the kernel has
# them, of /proc/vmstat's page allocation and free counters, to tell
# whether two kernels ran the same work in a different pattern.
# Output: WL-RESULT lines as guest.sh's, and after each
#   WL-DIAG <workload> ctxt=N pgalloc=N pgfree=N   (deltas; -1: absent)
wl_size=512 wl_loops=10 wl_groups=15 wl_fds=25 wl_ipc=pipe
wl_fprocs=2 wl_files=1000 wl_frounds=5 wl_fbytes=4096
wl_eprocs=2 wl_execs=200
for a in $(cat /proc/cmdline); do
	case $a in
	wl_*=*) eval "${a%%=*}=${a#*=}" ;;
	esac
done
hbipc=
[ "$wl_ipc" = pipe ] && hbipc=-p
echo "WL-STATE kernel=$(uname -r) mem_profiling=$(cat /proc/sys/vm/mem_profiling 2>/dev/null || echo none) cpus=$(grep -c ^processor /proc/cpuinfo)"
mkdir -p /tmp/wl
mount -t tmpfs tmpfs /tmp/wl || exit 1

counters() {
	c=$(awk '$1 == "ctxt" { print $2 }' /proc/stat)
	a=-1 f=-1
	if [ -r /proc/vmstat ]; then
		a=$(awk '$1 ~ /^pgalloc_/ { s += $2; n++ } END { print n ? s : -1 }' /proc/vmstat)
		f=$(awk '$1 == "pgfree" { print $2; n++ } END { if (!n) print -1 }' /proc/vmstat)
	fi
	echo "$c $a $f"
}

run() {
	name=$1
	shift
	"$@" >/dev/null || return 1	# warm-up, as guest.sh does
	set -- $(counters) "$@"
	c0=$1 a0=$2 f0=$3
	shift 3
	"$@" || return 1
	set -- $(counters)
	d() { [ "$2" = -1 ] && echo -1 || echo $(($1 - $2)); }
	echo "WL-DIAG $name ctxt=$(d $1 $c0) pgalloc=$(d $2 $a0) pgfree=$(d $3 $f0)"
}

rc=0
run hackbench /data/wl-hackbench -s "$wl_size" -l "$wl_loops" -g "$wl_groups" \
	-f "$wl_fds" -P $hbipc || rc=1
run files /data/wl-files -d /tmp/wl -j "$wl_fprocs" -n "$wl_files" \
	-r "$wl_frounds" -b "$wl_fbytes" || rc=1
run forkexec /data/wl-forkexec -e /data/wl-true -j "$wl_eprocs" \
	-n "$wl_execs" || rc=1
exit $rc
