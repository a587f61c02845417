# SPDX-License-Identifier: GPL-2.0
# Guest script of "make distro DISTRO_ARGS=deb" (issue 36 item 2): the
# kernel of the linux-image package, booted with the package's own
# modules (the module set of modules.list, taken from the unpacked
# package), and two external modules built against the linux-headers
# package.  What a user does after installing the packages: boot, load
# modules, sysctl vm.mem_profiling=1, read /proc/allocinfo.
#   deb_rel=RELEASE  on the kernel command line: the packages' release
. /data/lib.sh
F=/proc/allocinfo
M=allocprof_test
want=
for a in $(cat /proc/cmdline); do
	case $a in
	deb_rel=*) want=${a#deb_rel=} ;;
	esac
done
rel=$(uname -r)
check "the packaged kernel runs ($rel, package $want)" [ -n "$want" -a "$rel" = "$want" ]
ln -s /data/lib /lib
check "the package's modules are there (modules.dep of $rel)" \
	[ -s "/lib/modules/$rel/modules.dep" ]

# The module set, with its dependencies, from the package's modules.
n=0 bad=0
for m in $(sed 's/#.*//' /data/modules.list); do
	if grep -qE "/($m|$(echo "$m" | tr _ -))\.ko\$" "/lib/modules/$rel/modules.builtin"; then
		continue
	fi
	n=$((n + 1))
	if ! modprobe "$m" 2>/tmp/modprobe.err; then
		echo "modprobe $m: $(head -1 /tmp/modprobe.err)"
		bad=$((bad + 1))
	fi
done
check "modprobe of the package's module set: $((n - bad)) of $n loaded" [ $n -gt 0 -a $bad = 0 ]
echo "lsmod: $(lsmod | tail -n +2 | wc -l) modules"

# As shipped: compiled in, off until switched on.
check "vm.mem_profiling is 0 as the package boots" [ "$(sysctl_val)" = 0 ]
echo 1 >/proc/sys/vm/mem_profiling
check "sysctl vm.mem_profiling=1 takes" [ "$(sysctl_val)" = 1 ]
check "/proc/allocinfo is root-only (0400)" \
	[ "$(stat -c %a $F)" = 400 ]
head -2 $F

# The external modules, built against the linux-headers package.
insmod /data/allocprof_holder.ko || fail "insmod allocprof_holder (built against linux-headers)"
insmod /data/$M.ko || fail "insmod $M (built against linux-headers)"
check "the external modules are loaded" \
	[ -d /sys/module/allocprof_holder -a -d /sys/module/$M ]
set -- $(dmesg | sed -n "s/.*$M: sites \([0-9]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3/p" | tail -1)
l1=$1 l2=$2 l3=$3
set -- $(dmesg | sed -n "s/.*$M: sizes \([0-9]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3/p" | tail -1)
s1=$1 s2=$2 s3=$3
echo "external module: sites at lines $l1 $l2 $l3, sizes $s1 $s2 $s3"
site() { grep "$M.c:$1 \[$M\] func:${M}_init\$" $F; }
site "$l1"; site "$l2"; site "$l3"
check "external module's kmalloc(100) line: $s1 bytes, 1 call" \
	[ -n "$l1" -a "$(site "$l1" | awk '{print $1, $2}')" = "$s1 1" ]
check "external module's kzalloc(1000) line: $s2 bytes, 1 call" \
	[ -n "$l2" -a "$(site "$l2" | awk '{print $1, $2}')" = "$s2 1" ]
check "external module's kstrdup line: $s3 bytes, 1 call" \
	[ -n "$l3" -a "$(site "$l3" | awk '{print $1, $2}')" = "$s3 1" ]
rmmod $M || fail "rmmod $M"
check "its lines are gone after rmmod" [ -z "$(site "$l1")" ]
rmmod allocprof_holder || fail "rmmod allocprof_holder"

echo "sort -rn /proc/allocinfo | head -5:"
sort -rn $F | head -5
echo 0 >/proc/sys/vm/mem_profiling
check "sysctl vm.mem_profiling=0 takes" [ "$(sysctl_val)" = 0 ]
check "no oops, BUG or WARNING in the log" \
	[ -z "$(dmesg | grep -E 'Oops|BUG:|WARNING:|Call Trace')" ]
[ "$FAILED" = 0 ]
