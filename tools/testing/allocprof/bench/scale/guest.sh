#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script of the scale benchmark (../scale.py boots it with
# ../../qemu-run.sh; the modules and scale-tool are in /data).  Parameters
# come from the kernel command line:
#
#   scale_item=sites|xcpu|allocinfo|modload|ioctl
#   scale_iter=N        iterations for the sites and xcpu modules
#   scale_sites=A,B,..  site counts of the sites/allocinfo modules to load
#   scale_loads=N       modload: load/unload rounds
#
# Output: SCALE-* lines, one per figure.  A module that does not load or
# run is reported (SCALE-*-FAIL, with the kernel's last messages) and the
# script goes on: the exit status is 0 unless the script itself failed.
scale_item=none scale_iter=0 scale_sites=1 scale_loads=5
for a in $(cat /proc/cmdline); do
	case $a in
	scale_*=*) eval "${a%%=*}=${a#*=}" ;;
	esac
done
tool=/data/scale-tool
sites=$(echo "$scale_sites" | tr , ' ')

echo "SCALE-STATE item=$scale_item mem_profiling=$(cat /proc/sys/vm/mem_profiling 2>/dev/null || echo none) cpus=$(grep -c ^processor /proc/cpuinfo) kernel=$(uname -r)"

# The kernel's last messages, after a failed load: warnings and errors, and
# the last two lines.
kmsg_tail() {
	dmesg | tail -n 40 | grep -E "WARNING|illegal|Could not|fail|error" |
		tail -n 3 | sed "s/^/SCALE-KMSG /"
	dmesg | tail -n 2 | sed "s/^/SCALE-KMSG /"
}

# load KO PARAMS: run a module that prints a line and fails with -EAGAIN;
# print the last line matching PATTERN as SCALE-RESULT.
run_bench() {
	ko=$1 params=$2 pattern=$3
	out=$($tool load "$ko" "$params")
	echo "$out"
	line=$(dmesg | grep "$pattern" | tail -n 1)
	case $out in
	*errno=11*) ;;
	*) line= ;;
	esac
	if [ -z "$line" ]; then
		echo "SCALE-RESULT-FAIL $ko"
		kmsg_tail
		return 1
	fi
	echo "SCALE-RESULT ${line#*] }"
}

rc=0
case $scale_item in
sites)
	for n in $sites; do
		run_bench /data/scale_sites_$n.ko "iterations=$scale_iter" \
			"scale_sites: sites $n "
	done
	;;
xcpu)
	run_bench /data/scale_xcpu.ko "iterations=$scale_iter" \
		"scale_xcpu: objects"
	;;
allocinfo)
	echo "SCALE-ALLOCINFO sites=0"
	$tool read /proc/allocinfo 3 || rc=1
	for n in $sites; do
		echo "SCALE-ALLOCINFO sites=$n"
		out=$($tool load /data/scale_tags_$n.ko hold=1)
		echo "$out"
		case $out in
		*rc=0*) ;;
		*) echo "SCALE-ALLOCINFO-FAIL sites=$n"; kmsg_tail; continue ;;
		esac
		echo "SCALE-MODLINES $(grep -c "scale_tags_$n\]" /proc/allocinfo)"
		grep -m 1 "scale_tags_$n\]" /proc/allocinfo | sed 's/^/SCALE-SAMPLE /'
		$tool read /proc/allocinfo 3 || rc=1
		$tool unload scale_tags_$n
	done
	;;
ioctl)
	# One site by file and line through the ioctl, against the whole
	# text: the first vmlinux site (found at once) and the module's last
	# (found after every other record), with the module loaded.
	for n in $sites; do
		out=$($tool load /data/scale_tags_$n.ko hold=1)
		case $out in
		*rc=0*) ;;
		*) echo "SCALE-IOCTL-FAIL sites=$n"; kmsg_tail; continue ;;
		esac
		first=$(sed -n 3p /proc/allocinfo | awk '{print $3}')
		last=$(grep "scale_tags_$n\]" /proc/allocinfo | tail -n 1 | awk '{print $3}')
		echo "SCALE-IOCTLSET sites=$n total=$(($(wc -l </proc/allocinfo) - 2))"
		$tool read /proc/allocinfo 3 || rc=1
		echo "SCALE-IOCTLAT which=first site=$first"
		$tool ioctl "${first%:*}" "${first##*:}" 3 || rc=1
		echo "SCALE-IOCTLAT which=last site=$last"
		$tool ioctl "${last%:*}" "${last##*:}" 3 || rc=1
		$tool unload scale_tags_$n
	done
	;;
modload)
	for n in $sites; do
		i=0
		while [ $i -lt "$scale_loads" ]; do
			echo "SCALE-MODLOAD sites=$n round=$i"
			out=$($tool load /data/scale_tags_$n.ko)
			echo "$out"
			case $out in
			*rc=0*) ;;
			*) echo "SCALE-MODLOAD-FAIL sites=$n"; kmsg_tail; break ;;
			esac
			$tool unload scale_tags_$n
			i=$((i + 1))
		done
	done
	;;
*)
	echo "SCALE-FAILED unknown item $scale_item"
	rc=1
	;;
esac
exit $rc
