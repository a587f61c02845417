#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: build matrix, KUnit suites, QEMU boot checks, tool tests.
# Every KUnit case, boot check and build counts in the final line
# "N passed, N failed, N skipped"; exits non-zero on any failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$top/build
logs=$B/check-logs
mkdir -p "$logs"
P=0 F=0 S=0

note() { printf '%s\n' "$*"; }
# A section header, with the minutes since the start: CI's limit is on
# the whole run, and these say where the time went.
section() { note "== $* [$((SECONDS / 60)) min]"; }
ok() { P=$((P + 1)); note "PASS: $*"; }
ko() { F=$((F + 1)); note "FAIL: $*"; }
sk() { S=$((S + 1)); note "SKIP: $*"; }

# Count PASS/FAIL/SKIP lines from a log.
tally() { # tally LOG LABEL
	local p f s
	p=$(grep -ac '^PASS: ' "$1"); f=$(grep -ac '^FAIL: ' "$1"); s=$(grep -ac '^SKIP: ' "$1")
	P=$((P + p)); F=$((F + f)); S=$((S + s))
	grep -a '^FAIL: ' "$1" | sed "s/^/  [$2] /"
	note "$2: $p passed, $f failed, $s skipped"
}

build() { # build NAME FRAGMENTS...
	local name=$1 t0=$SECONDS
	if "$here/build-kernel.sh" "$@" >"$logs/build-$name.log" 2>&1; then
		ok "build $name ($*), $((SECONDS - t0)) s"
		return 0
	fi
	tail -30 "$logs/build-$name.log"
	ko "build $name ($*)"
	return 1
}

boot() { # [CPUS=n] [TIMEOUT=s] [ARCH=arm64] [MEM=qemu -m] [QEMU_EXTRA=args] [ALLOW=regex] boot KERNEL NAME SCRIPT APPEND [FILES...]
	local kernel=$1 name=$2 script=$3 append=$4 rc provoked=$PROVOKED
	[ -n "${ALLOW:-}" ] && provoked="$PROVOKED|$ALLOW"
	shift 4
	local args=(-k "$kernel" -s "$here/guest/$script" -f "$here/guest/lib.sh"
		-a "$append" -t "${TIMEOUT:-400}" -c "${CPUS:-1}" -l "$logs/boot-$name.log"
		-r "${ARCH:-x86_64}" -m "${MEM:-512}")
	[ -n "${QEMU_EXTRA:-}" ] && args+=(-x "$QEMU_EXTRA")
	for f in "$@"; do args+=(-f "$f"); done
	"$here/qemu-run.sh" "${args[@]}" >/dev/null 2>"$logs/boot-$name.err"
	rc=$?
	tally "$logs/boot-$name.log" "boot $name"
	# Any splat on the console fails the run, with the splat printed;
	# except the reports that debug.sh provokes on purpose.
	if grep -aE "$SPLAT" "$logs/boot-$name.log" | grep -aqvE "$provoked"; then
		grep -aE -A12 "$SPLAT" "$logs/boot-$name.log" |
			grep -avE "$provoked" | head -40
		ko "boot $name: console free of splats"
	else
		ok "boot $name: console free of splats"
	fi
	if [ $rc -ge 124 ] || ! grep -aq '^\(PASS\|FAIL\|SKIP\): ' "$logs/boot-$name.log"; then
		cat "$logs/boot-$name.err"
		tail -20 "$logs/boot-$name.log"
		ko "boot $name finished (status $rc)"
	elif [ $rc != 0 ] && ! grep -aq '^FAIL: ' "$logs/boot-$name.log"; then
		# A script that stopped early (a shell that could not fork, a
		# FAIL line garbled by a kernel message) has checks missing.
		tail -20 "$logs/boot-$name.log"
		ko "boot $name: the script ended with status $rc and no FAIL line"
	fi
}

# The slab memory a spike leaves behind (guest/spike.sh), booted at
# profiling 1 against the same kernel booted at 0: within 1 MiB.
spike_compare() { # spike_compare NAME (boots NAME-0 and NAME-1)
	local label off on
	for label in plain memcg; do
		off=$(tr -d '\r' <"$logs/boot-$1-0.log" |
			sed -n "s/^spike-result $label \(-\{0,1\}[0-9]*\)$/\1/p" | tail -1)
		on=$(tr -d '\r' <"$logs/boot-$1-1.log" |
			sed -n "s/^spike-result $label \(-\{0,1\}[0-9]*\)$/\1/p" | tail -1)
		if [ -n "$off" ] && [ -n "$on" ] && [ $((on - off)) -lt 1024 ]; then
			ok "$1 $label: slab left after a spike, on $on kB against off $off kB"
		else
			ko "$1 $label: slab left after a spike, on ${on:-?} kB against off ${off:-?} kB (1 MiB allowed)"
		fi
	done
}

# What counts as a splat on a guest console.
SPLAT='WARNING:|BUG:|KASAN|Kernel panic|Oops|possible recursive locking|'\
'inconsistent lock state|possible circular locking|suspicious RCU usage|'\
'rcu_sched detected stalls|rcu: INFO|kernel BUG at|slab error in|Slab corruption|'\
'alloc_tag: .*(not cleared|charged twice|without a tag|unknown tag)'
PROVOKED='alloc_tag: allocation without a tag from untagged_(slab|page)\+0x[0-9a-f]+/0x[0-9a-f]+ \[allocprof_untagged\]'

section "build matrix"
# kmemleak and failslab compiled in, off but for the kmemleak boots.
build kernel guest prof-on numa kmemleak && have_on=1 || have_on=0
build off guest prof-off slab && have_off=1 || have_off=0
build sanitize guest debug sanitize && have_san=1 || have_san=0
build kcsan guest prof-on kcsan && have_kcsan=1 || have_kcsan=0
# arm64, cross-compiled: profiling on, the KUnit suites built in.
ARCH=arm64 build arm64 guest arm64 prof-on kunit && have_a64=1 || have_a64=0
# i386, as Debian's 686-pae: PAE, high memory, memcg, no virtual memmap;
# the KUnit suites built in, for their 32-bit arithmetic.
ARCH=i386 build i386 guest prof-on i386 kunit && have_i386=1 || have_i386=0

# KUnit under UML is built and run in the background on one job while the
# QEMU checks below, which use one CPU each, run; it is counted at the end.
kunit_log=$logs/kunit-um.log
rm -f "$logs/kunit.done"
{
	( cd "$B/linux" && ./tools/testing/kunit/kunit.py run \
		--kunitconfig=lib/.kunitconfig --build_dir="$B/kunit-um" \
		--jobs=1 --make_options CC="ccache gcc" ) >"$kunit_log" 2>&1
	rc=$?
	echo $rc >"$logs/kunit.done"
	exit $rc
} &
kunit_pid=$!

section "external test modules"
# Built against each kernel that boots them: build/testmod-NAME.
modules() { # [ARCH=arm64] modules NAME
	local mod=$B/testmod-$1 cross=()
	[ "${ARCH:-x86_64}" = arm64 ] &&
		cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	[ "${ARCH:-x86_64}" = i386 ] && cross=(ARCH=i386)
	rm -rf "$mod" && mkdir -p "$mod" && cp "$here"/modules/* "$mod"/
	python3 "$here/modules/gen-many.py" 2000 >"$mod/allocprof_many.c"
	if make -C "$B/$1" M="$mod" "${cross[@]}" modules >"$logs/testmod-$1.log" 2>&1; then
		ok "external test modules build against build/$1"
		return 0
	fi
	tail -20 "$logs/testmod-$1.log"
	ko "external test modules build against build/$1"
	return 1
}
# The kselftest of the /proc/allocinfo ioctl, static for the busybox
# guests, against each kernel's exported headers: build/selftest-NAME.
selftest() { # [ARCH=arm64] selftest NAME
	local d=$B/selftest-$1 cc=gcc a=${ARCH:-x86_64}
	[ "$a" = arm64 ] && cc=aarch64-linux-gnu-gcc
	rm -rf "$d" && mkdir -p "$d"
	if make -s -C "$B/$1" ARCH="$a" headers_install INSTALL_HDR_PATH="$d/usr" \
		>"$logs/selftest-$1.log" 2>&1 &&
	   $cc -static -O2 -Wall -Werror -I"$d/usr/include" -o "$d/allocinfo_ioctl" \
		"$B/linux/tools/testing/selftests/alloc_tag/allocinfo_ioctl.c" \
		>>"$logs/selftest-$1.log" 2>&1 &&
	   $cc -static -O2 -Wall -Werror -I"$d/usr/include" -o "$d/allocinfo_nodes" \
		"$B/linux/tools/testing/selftests/alloc_tag/allocinfo_nodes.c" \
		>>"$logs/selftest-$1.log" 2>&1; then
		ok "kselftest alloc_tag builds against build/$1"
	else
		tail -20 "$logs/selftest-$1.log"
		ko "kselftest alloc_tag builds against build/$1"
	fi
	# The allocinfo tool for the guests of other architectures (x86_64
	# guests use the one allocinfo/run-tests.sh builds).
	[ "$a" = x86_64 ] && return 0
	if $cc -static -O2 -Wall -Wextra -Werror -o "$d/allocinfo-static" \
		"$top"/tools/vm/allocinfo*.c >>"$logs/selftest-$1.log" 2>&1; then
		ok "allocinfo tool builds static for $a"
	else
		tail -20 "$logs/selftest-$1.log"
		ko "allocinfo tool builds static for $a"
	fi
}
[ $have_on = 1 ] && selftest kernel
[ $have_a64 = 1 ] && ARCH=arm64 selftest arm64
have_mod=0 have_mod_san=0
[ $have_on = 1 ] && modules kernel && have_mod=1
[ $have_san = 1 ] && modules sanitize && have_mod_san=1
have_mod_kcsan=0
[ $have_kcsan = 1 ] && modules kcsan && have_mod_kcsan=1
have_mod_a64=0
[ $have_a64 = 1 ] && ARCH=arm64 modules arm64 && have_mod_a64=1
have_mod_i386=0
[ $have_i386 = 1 ] && ARCH=i386 modules i386 && have_mod_i386=1
mod=$B/testmod-kernel
mods() { # the .ko files booted by the module and stress checks
	local d=$B/testmod-$1
	echo "$d/allocprof_test.ko $d/allocprof_holder.ko $d/allocprof_many.ko $d/allocprof_stress.ko"
}
# Debian's stress-ng and trinity for guest/tools.sh: build/userland.
have_userland=0
if "$here/userland.sh" "$B/userland" >"$logs/userland.log" 2>&1; then
	have_userland=1
	ok "stress-ng and trinity with their libraries for the guests ($(du -sm "$B/userland" | cut -f1) MB)"
else
	ko "stress-ng and trinity with their libraries for the guests (make deps installs them)"
fi
# Marker file: stress.sh injects faults when /data/stress-fault exists.
echo 1 >"$B/stress-fault"
# Marker file: stress.sh takes CPUs offline and online when
# /data/stress-cpuhp exists.
echo 1 >"$B/stress-cpuhp"
# Marker file: stress.sh selects, deselects and reads the stress sites
# all the time when /data/stress-races exists.
echo 1 >"$B/stress-races"
# Marker file: bootoff.sh makes the first switch-on fail when /data/enomem
# exists.
echo 1 >"$B/enomem"

if [ -x "$here/allocinfo/run-tests.sh" ]; then
	note "== allocinfo tool"
	"$here/allocinfo/run-tests.sh" "$B/allocinfo" >"$logs/allocinfo.log" 2>&1
	tally "$logs/allocinfo.log" "allocinfo"
fi

section "compiled out: what 6.1 has (exports, entry point names, struct layouts)"
if [ $have_off = 1 ]; then
	"$here/abi-check.sh" off guest prof-off slab >"$logs/abi.log" 2>&1
	tally "$logs/abi.log" "abi"
else
	ko "ABI comparison (no compiled-out kernel)"
fi

# The arm64 and i386 boots run beside the x86-64 ones once KUnit under
# UML has finished: a guest takes one CPU, and two cores have two.
# Their report and counts join the rest at the end.
foreign_boots() {
	P=0 F=0 S=0
	while [ ! -e "$logs/kunit.done" ]; do sleep 10; done
	section "arm64 (qemu-system-aarch64 -M virt -cpu max, TCG)"
	if [ $have_a64 = 1 ]; then
		A_K=$B/arm64/arch/arm64/boot/Image
		# The suites run at every boot of this kernel; memcg off lets the
		# migration case run (see alloc_tag_test_migrate).
		ARCH=arm64 boot "$A_K" a64-kunit kunit-boot.sh "cgroup_disable=memory"
		ARCH=arm64 boot "$A_K" a64-allocinfo allocinfo.sh ""
		if [ $have_mod_a64 = 1 ]; then
			# shellcheck disable=SC2046
			ARCH=arm64 boot "$A_K" a64-modules modules.sh "" $(mods arm64)
			# shellcheck disable=SC2046
			ARCH=arm64 CPUS=2 boot "$A_K" a64-stress stress.sh "" $(mods arm64)
			ARCH=arm64 boot "$A_K" a64-capture capture.sh "" \
				"$B/testmod-arm64/allocprof_holder.ko" \
				"$B/testmod-arm64/allocprof_capture.ko" \
				"$B/testmod-arm64/allocprof_stress.ko" \
				"$B/selftest-arm64/allocinfo-static"
			if [ -x "$B/selftest-arm64/allocinfo_ioctl" ]; then
				ARCH=arm64 boot "$A_K" a64-ioctl ioctl.sh "" \
					"$B/selftest-arm64/allocinfo_ioctl" \
					"$B/testmod-arm64/allocprof_pcpu.ko" \
					"$B/testmod-arm64/allocprof_many.ko"
			else
				ko "boot a64-ioctl (no kselftest binary)"
			fi
		else
			ko "arm64 module and stress checks (no modules)"
		fi
		ARCH=arm64 boot "$A_K" a64-never never.sh "sysctl.vm.mem_profiling=never"
		ARCH=arm64 boot "$A_K" a64-bootoff bootoff.sh "sysctl.vm.mem_profiling=0"
		ARCH=arm64 boot "$A_K" a64-badparam badparam.sh "sysctl.vm.mem_profiling=bogus,nodez"
	else
		ko "arm64 boot checks (no kernel)"
	fi

	section "i386 (qemu-system-i386, PAE, 1.5 GiB: high memory)"
	if [ $have_i386 = 1 ]; then
		I_K=$B/i386/arch/x86/boot/bzImage
		I_M=$B/testmod-i386
		export MEM=1536
		ARCH=i386 boot "$I_K" i386-kunit kunit-boot.sh "cgroup_disable=memory"
		ARCH=i386 boot "$I_K" i386-allocinfo allocinfo.sh ""
		if [ $have_mod_i386 = 1 ]; then
			# shellcheck disable=SC2046
			ARCH=i386 CPUS=2 boot "$I_K" i386-modules modules.sh "" $(mods i386)
			ARCH=i386 boot "$I_K" i386-memcg memcg.sh "sysctl.vm.mem_profiling=0" \
				"$I_M/allocprof_memcg.ko"
			ARCH=i386 CPUS=2 boot "$I_K" i386-bootoff bootoff.sh \
				"sysctl.vm.mem_profiling=0" "$I_M/allocprof_pcpu.ko"
			ARCH=i386 boot "$I_K" i386-kprobe kprobe.sh "" "$I_M/allocprof_kprobe.ko"
		else
			ko "i386 module checks (no modules)"
		fi
		ARCH=i386 boot "$I_K" i386-never never.sh "sysctl.vm.mem_profiling=never"
		unset MEM
	else
		ko "i386 boot checks (no kernel)"
	fi
	echo "$P $F $S" >"$logs/foreign.counts"
}
rm -f "$logs/foreign.counts"
foreign_boots >"$logs/foreign.out" 2>&1 &
foreign_pid=$!

section "QEMU boot checks"
K=$B/kernel/arch/x86/boot/bzImage
if [ $have_on = 1 ]; then
	boot "$K" allocinfo allocinfo.sh ""
	# Firmware may reserve the first 2 MiB of a memory section: the
	# section's page-tag chunk is there all the same (or every charge of
	# its pages warns).
	# shellcheck disable=SC2016
	boot "$K" hole allocinfo.sh 'memmap=2M$128M'
	if [ $have_mod = 1 ]; then
		# shellcheck disable=SC2046
		boot "$K" modules modules.sh "" $(mods kernel)
		# shellcheck disable=SC2046
		CPUS=2 boot "$K" stress stress.sh "" $(mods kernel)
		# shellcheck disable=SC2046
		CPUS=4 TIMEOUT=1200 boot "$K" cpuhp stress.sh "" $(mods kernel) \
			"$B/stress-cpuhp"
		if [ $have_userland = 1 ]; then
			CPUS=2 MEM=1024 TIMEOUT=1200 boot "$K" tools tools.sh "" \
				"$mod/allocprof_test.ko" "$mod/allocprof_holder.ko" \
				"$B/userland"
		fi
		# shellcheck disable=SC2046
		boot "$K" capture capture.sh "" \
			"$mod/allocprof_holder.ko" "$mod/allocprof_capture.ko" \
			"$mod/allocprof_stress.ko" \
			$(ls "$B/allocinfo/allocinfo-static" 2>/dev/null)
		boot "$K" memcg memcg.sh "sysctl.vm.mem_profiling=0" \
			"$mod/allocprof_memcg.ko"
		# Slab memory after a spike: booted at 0 and at 1, on 2 vCPUs and
		# on 1 with slub_min_objects=32, what SLUB computes for 64 to 127
		# CPUs (4 * (fls(CPUs) + 1)); kmalloc-256 then has 32 objects a
		# slab, as with any count from 8 up.
		for v in 0 1; do
			CPUS=2 boot "$K" spike-2cpu-$v spike.sh \
				"sysctl.vm.mem_profiling=$v" "$mod/allocprof_spike.ko"
			boot "$K" spike-min32-$v spike.sh \
				"sysctl.vm.mem_profiling=$v slub_min_objects=32" \
				"$mod/allocprof_spike.ko"
		done
		spike_compare spike-2cpu
		spike_compare spike-min32
		if [ -x "$B/selftest-kernel/allocinfo_ioctl" ]; then
			boot "$K" ioctl ioctl.sh "" \
				"$B/selftest-kernel/allocinfo_ioctl" "$mod/allocprof_pcpu.ko" \
				"$mod/allocprof_many.ko"
		else
			ko "boot ioctl (no kselftest binary)"
		fi
		if [ -x "$B/allocinfo/allocinfo-static" ]; then
			boot "$K" allocinfo-tool allocinfo-tool.sh "" \
				"$B/allocinfo/allocinfo-static" \
				"$mod/allocprof_test.ko" "$mod/allocprof_holder.ko"
		else
			ko "boot allocinfo-tool (no static allocinfo binary)"
		fi
	else
		sk "boot modules (no test module)"
	fi
	boot "$K" never never.sh "sysctl.vm.mem_profiling=never"
	if [ $have_mod = 1 ]; then
		boot "$K" kprobe kprobe.sh "" "$mod/allocprof_kprobe.ko"
	fi
	# shellcheck disable=SC2046
	CPUS=2 boot "$K" bootoff bootoff.sh "sysctl.vm.mem_profiling=0" \
		$([ $have_mod = 1 ] && echo "$mod/allocprof_pcpu.ko" \
			"$mod/allocprof_capture.ko" "$mod/allocprof_holder.ko")
	boot "$K" badparam badparam.sh "sysctl.vm.mem_profiling=bogus,nodez"
	if [ $have_mod = 1 ]; then
		# Page tags in the array (numa.config) across hotplug.  pci=off:
		# numa.config has PCI, which would place its windows in the RAM
		# that mem= hides, where the probe file must add memory.
		MEM=1024 TIMEOUT=900 boot "$K" hotplug hotplug.sh \
			"mem=512M memhp_default_state=online_movable pci=off" \
			"$mod/allocprof_hotplug.ko"
		# Per-node counters: two nodes from QEMU through the ACPI SRAT
		# (numa.config), a socket (a CPU) and half the memory each.
		CPUS=2 MEM=768 QEMU_EXTRA="-smp 2,sockets=2,cores=1,threads=1 \
			-object memory-backend-ram,id=m0,size=384M \
			-object memory-backend-ram,id=m1,size=384M \
			-numa node,nodeid=0,cpus=0,memdev=m0 \
			-numa node,nodeid=1,cpus=1,memdev=m1" \
			boot "$K" nodes nodes.sh "sysctl.vm.mem_profiling=1,nodes" \
			"$mod/allocprof_nodes.ko" "$mod/allocprof_pcpu.ko" \
			"$B/selftest-kernel/allocinfo_nodes" \
			"$B/allocinfo/allocinfo-static"
		# Cumulative counters: not chosen (nothing allocated), then on
		# and off at run time; chosen at boot; allocinfo leaks and top
		# --rate on a module that leaks, churns and fills a cache.
		boot "$K" cumulative cumulative.sh "" "$mod/allocprof_leaky.ko" \
			"$B/allocinfo/allocinfo-static"
		boot "$K" cumulative-boot cumulative.sh \
			"sysctl.vm.mem_profiling=1,cumulative" "$mod/allocprof_leaky.ko" \
			"$B/allocinfo/allocinfo-static"
		boot "$K" leaks leaks.sh "sysctl.vm.mem_profiling=1,cumulative" \
			"$mod/allocprof_leaky.ko" "$B/allocinfo/allocinfo-static"
	fi
else
	ko "boot checks of the profiling kernel (no kernel)"
fi
if [ $have_off = 1 ]; then
	boot "$B/off/arch/x86/boot/bzImage" off off.sh ""
else
	ko "boot check of the compiled-out kernel (no kernel)"
fi

section "sanitizer kernel (KASAN, lockdep, DEBUG_VM, atomic sleep, profiling debug)"
if [ $have_san = 1 ]; then
	S_K=$B/sanitize/arch/x86/boot/bzImage
	# memcg off lets the migration case run (see alloc_tag_test_migrate).
	boot "$S_K" san-kunit kunit-boot.sh "cgroup_disable=memory"
	boot "$S_K" san-allocinfo allocinfo.sh ""
	if [ $have_mod_san = 1 ]; then
		# shellcheck disable=SC2046
		boot "$S_K" san-modules modules.sh "" $(mods sanitize)
		# shellcheck disable=SC2046
		CPUS=2 boot "$S_K" san-capture capture.sh "" \
			"$B/testmod-sanitize/allocprof_holder.ko" \
			"$B/testmod-sanitize/allocprof_capture.ko" \
			"$B/testmod-sanitize/allocprof_stress.ko" \
			$(ls "$B/allocinfo/allocinfo-static" 2>/dev/null)
		# shellcheck disable=SC2046
		boot "$S_K" san-memcg memcg.sh "sysctl.vm.mem_profiling=0" \
			"$B/testmod-sanitize/allocprof_memcg.ko"
		# shellcheck disable=SC2046
		CPUS=2 TIMEOUT=1200 boot "$S_K" san-stress stress.sh "" $(mods sanitize)
		# shellcheck disable=SC2046
		CPUS=2 TIMEOUT=1200 boot "$S_K" san-stress-fault stress.sh "" $(mods sanitize) \
			"$B/stress-fault"
	else
		ko "sanitizer module and stress checks (no modules)"
	fi
	if [ $have_mod_san = 1 ]; then
		boot "$S_K" san-debug debug.sh "" \
			"$B/testmod-sanitize/allocprof_untagged.ko"
		# This kernel's page->flags field is 16 bits wide (debug.config).
		TIMEOUT=900 boot "$S_K" san-lifetime lifetime.sh "" \
			"$B/testmod-sanitize/allocprof_leak.ko" \
			"$B/testmod-sanitize/allocprof_many.ko"
	else
		ko "debug and module lifetime checks (no modules for the sanitizer kernel)"
	fi
	if [ $have_mod_san = 1 ]; then
		MEM=1024 TIMEOUT=900 boot "$S_K" san-hotplug hotplug.sh \
			"mem=512M memhp_default_state=online_movable" \
			"$B/testmod-sanitize/allocprof_hotplug.ko"
	else
		ko "page tags in page->flags across hotplug (no modules for the sanitizer kernel)"
	fi
	boot "$S_K" san-never never.sh "sysctl.vm.mem_profiling=never"
	# shellcheck disable=SC2046
	CPUS=2 boot "$S_K" san-bootoff bootoff.sh "sysctl.vm.mem_profiling=0" \
		$([ $have_mod_san = 1 ] && echo "$B/testmod-sanitize/allocprof_pcpu.ko")
	boot "$S_K" san-badparam badparam.sh "sysctl.vm.mem_profiling=bogus,nodez"
else
	ko "sanitizer boot checks (no kernel)"
fi

section "kmemleak (the series' own memory: modules, capture, switches, hotplug)"
if [ $have_mod = 1 ]; then
	MEM=1024 TIMEOUT=900 boot "$K" kmemleak kmemleak.sh \
		"kmemleak=on slub_nomerge mem=512M memhp_default_state=online_movable pci=off" \
		"$mod/allocprof_test.ko" "$mod/allocprof_holder.ko"
	# Booted off: the first switch-on fails for want of memory
	# (failslab), then succeeds; page tags in the array.
	CPUS=2 boot "$K" kml-bootoff bootoff.sh \
		"kmemleak=on sysctl.vm.mem_profiling=0" "$mod/allocprof_pcpu.ko" \
		"$B/enomem"
else
	ko "kmemleak boot (no kernel or modules)"
fi

section "KCSAN (the series' lockless accesses are marked)"
# A function of the series (or of a test module) among the frames of
# either stack of a report, or in its title.  Inlined hooks show as their
# callers in 6.1's mm code, so every report is printed, and the ones that
# are 6.1's own are listed in BENCHMARKS.md.  A report cut short (another
# begins, or the log ends) counts as the series': a human must read it.
SERIES_FN='^(__)?(alloc_tag|codetag|pgtag|pgalloc_tag|allocinfo|mem_profiling|'\
'capture_|ct_(add|del)_range|ct_chunk|ct_section|(get|put|find)_cmod|range_tag|'\
'rec_(bucket|link|release|unlink)|stack_(account|bucket|get|release|unlink)|'\
'stacks_|show_top|slab_tags|slab_obj_ext|free_pages_tail)|\[allocprof_'
kcsan_reports() { # kcsan_reports NAME
	local log=$logs/boot-$1.log all series
	tr -d '\r' <"$log" | awk -v re="$SERIES_FN" '
		function done(cut) {
			n++
			if (cut || mine) { s++; print "series:" b } else print "6.1: " t
		}
		/BUG: KCSAN:/ {
			if (r) done(1)
			r = 1; mine = 0; t = $0; sub(/.*BUG: KCSAN: /, "", t); b = "\n" t
			k = split(t, w, /[ \/]+/)
			for (i = 3; i <= k; i++) if (w[i] ~ re) mine = 1
			next
		}
		r && /Reported by Kernel Concurrency Sanitizer/ { r = 0; done(0); next }
		# A frame: "[ time]  func+0x../0x.. [module]"
		r && /\] +[A-Za-z_.][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/ {
			f = $0; sub(/^.*\] +/, "", f); b = b "\n  " f
			if (f ~ re) mine = 1
			if (f ~ /\[allocprof_/) mine = 1
		}
		END { if (r) done(1); printf "total %d series %d\n", n, s }' >"$logs/kcsan-$1.txt"
	cat "$logs/kcsan-$1.txt"
	all=$(sed -n 's/^total \([0-9]*\) .*/\1/p' "$logs/kcsan-$1.txt")
	series=$(sed -n 's/.* series \([0-9]*\)$/\1/p' "$logs/kcsan-$1.txt")
	if [ "${series:-x}" = 0 ]; then
		ok "boot $1: no KCSAN report from the series ($all from 6.1's own code)"
	else
		ko "boot $1: ${series:-?} KCSAN reports from the series"
	fi
}
if [ $have_mod_kcsan = 1 ]; then
	# shellcheck disable=SC2046
	CPUS=2 TIMEOUT=1200 ALLOW='BUG: KCSAN: ' boot "$B/kcsan/arch/x86/boot/bzImage" \
		kcsan stress.sh "" $(mods kcsan) "$B/stress-races" \
		$(ls "$B/allocinfo/allocinfo-static" 2>/dev/null)
	# The selftest proves the detector runs.
	if grep -aq 'kcsan: selftest: \([0-9]*\)/\1 tests passed' "$logs/boot-kcsan.log"; then
		ok "boot kcsan: KCSAN's boot selftest passed (the detector runs)"
	else
		ko "boot kcsan: KCSAN's boot selftest passed (the detector runs)"
	fi
	kcsan_reports kcsan
else
	ko "KCSAN boot (no kernel or modules)"
fi

section "KUnit (UML)"
# Its status from the file: bash's wait once answered 127 (no such job)
# for a job that had ended long before with status 0.
wait $kunit_pid
while [ ! -s "$logs/kunit.done" ] && kill -0 $kunit_pid 2>/dev/null; do
	sleep 5
done
krc=$(cat "$logs/kunit.done" 2>/dev/null)
krc=${krc:-none}
line=$(grep -a 'Testing complete. Ran' "$kunit_log" | tail -1)
grep -a -E '^\[[0-9:]+\] +(\[(PASSED|FAILED|SKIPPED)\]|# )' "$kunit_log" | tail -40
if [ -n "$line" ]; then
	kp=$(echo "$line" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
	kf=$(echo "$line" | sed -n 's/.*failed: \([0-9]*\).*/\1/p')
	ks=$(echo "$line" | sed -n 's/.*skipped: \([0-9]*\).*/\1/p')
	ke=$(echo "$line" | sed -n 's/.*errors: \([0-9]*\).*/\1/p')
	P=$((P + ${kp:-0})); F=$((F + ${kf:-0} + ${ke:-0})); S=$((S + ${ks:-0}))
	note "kunit: $line"
	[ "$krc" = 0 ] || [ -n "$kf$ke" ] || ko "kunit.py exit status $krc"
else
	tail -40 "$kunit_log"
	ko "kunit.py produced no result (status $krc)"
fi

wait $foreign_pid
cat "$logs/foreign.out"
if read -r fp ff fs <"$logs/foreign.counts"; then
	P=$((P + fp)); F=$((F + ff)); S=$((S + fs))
else
	ko "arm64 and i386 boots ended without their counts"
fi

section "FORTIFY_SOURCE (modules against modules_prepare of -O2 FORTIFY kernels)"
"$here/fortify.sh" >"$logs/fortify.log" 2>&1
tally "$logs/fortify.log" "fortify"

section "patch series (git am, quilt, patch -p1, same tree, checkpatch, docs; a fresh clone)"
"$here/series-check.sh" >"$logs/series.log" 2>&1
tally "$logs/series.log" "series"
# A fresh clone: the tool built, then make series and the series check
# (build outputs never become patches), make help.
"$here/clone-check.sh" >"$logs/clone.log" 2>&1
tally "$logs/clone.log" "clone"

note "logs: $logs; $((SECONDS / 60)) minutes"
echo "$P passed, $F failed, $S skipped"
[ "$F" = 0 ]
