#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# distro.sh: the series on a distribution's kernel configuration ("make
# distro", issue 17 items 2 and 3).  By hand only, never part of make check:
# the full build takes hours on two cores.
#
#   distro.sh [STAGE...]        (no stage: all)
#
# Kernels (every build: nice -n 19, ccache, make -j2 -k, an incremental O=
# folder, so that an interrupted run continues where it stopped):
#
#   build/distro       series (build/linux) with Debian's 6.1 cloud config
#                      (/usr/src/linux-config-6.1/config.amd64_none_cloud-amd64.xz)
#                      + CONFIG_MEM_ALLOC_PROFILING=y, ..._ENABLED_BY_DEFAULT=n,
#                      ..._DEBUG=n: bzImage and every module (~1,100)
#   build/distro-base  the pristine base (build/pristine/linux-source-6.1,
#                      read only, O=) with the same Debian config, no
#                      profiling: bzImage only, virtio built in
#   build/distro-owner build/distro with page_owner (owner stage)
#   build/distro-lean  build/distro built as the base is (lean stage)
#   build/distro-arm64*  Debian's arm64 configuration (arm64 stages)
#   build/distro-amd64 Debian's full amd64 configuration
#                      (config.amd64_none_amd64: ~3,850 modules, GPU,
#                      wireless, staging, sound, rare file systems) with the
#                      series as build/distro has it, built from a snapshot
#                      of this repository at one commit (amd64-full stages)
#   build/distro-ml    mainline 6.12 (Debian's linux-source-6.12, unpacked
#                      once into build/bench-6.12 as bench/run.py does) with
#                      Debian's 6.12 cloud config + CONFIG_MEM_ALLOC_PROFILING=y:
#                      bzImage only, virtio built in
#
# Config fragments on top of Debian's: configs/common.config (no Debian
# signing keys, no DWARF/BTF; why: in the file), configs/series.config,
# configs/builtin.config (comparison kernels), configs/ml.config.  After
# olddefconfig every fragment line must have stuck, and NUMA, NODES_SHIFT,
# NR_CPUS, MEMCG, LRU_GEN, NUMA_BALANCING, SPARSEMEM_VMEMMAP, FORTIFY_SOURCE,
# JUMP_LABEL, -O2 and the rest of $KEEP must be what Debian has: otherwise
# the stage fails.  build/distro*/config-diff.txt lists every difference from
# Debian's config (scripts/diffconfig).
#
# Stages:
#   deps           apt-get install what is missing (linux-config-6.1/6.12,
#                  linux-source-6.12, xfsprogs, btrfs-progs, ...)
#   config         configure build/distro
#   build          bzImage + modules of build/distro (log:
#                  build/distro-logs/build-series.log; time per session in
#                  build/distro/distro-build-times; errors and warnings in
#                  build/distro/build-errors.txt, build-warnings.txt)
#   deb            packages (issue 36): bindeb-pkg of build/distro (the
#                  build stage first) into build/distro-deb: linux-image,
#                  linux-headers, linux-libc-dev; then deb-check: both
#                  unpacked into build/distro-deb/root with dpkg -x, two
#                  test modules built there against linux-headers as
#                  external modules, and the packaged kernel booted (QEMU
#                  TCG, 2 vCPUs, 4 GiB) with the package's own modules of
#                  the module set (distro/deb-guest.sh: modprobe, the
#                  sysctl, the external modules' lines in /proc/allocinfo).
#                  deb-build and deb-check run one half.  Log:
#                  build/distro-logs/deb-*.log, boot-deb.log
#   arm64          Debian's arm64 cloud configuration (linux-config-6.1:arm64,
#                  config.arm64_none_cloud-arm64, downloaded and unpacked
#                  into build/debcfg-arm64, never installed) with the series
#                  as build/distro has it, cross-built into build/distro-arm64
#                  (Image and every module, resumable), then booted under
#                  qemu-system-aarch64 -M virt -cpu max (TCG, 2 vCPUs,
#                  4 GiB) with the module set and the same guest checks:
#                  arm64-on (=1) and arm64-off (=0, figures).  config-arm64,
#                  build-arm64 and boot-arm64 run one part; arm64-base
#                  builds and boots the pristine base with the same
#                  configuration (Image only, virtio built in, as base);
#                  arm64-lean builds the series as arm64-base is built and
#                  boots it =0 (then switched on) and =1, as lean does
#   containers [N] the containers use case (issue 36): build/distro booted
#                  with the module set; distro/containers-guest.sh makes N
#                  memory cgroups (200) that each mount a tmpfs and an
#                  overlay and touch files, prints allocinfo's diff, top
#                  of list_lru and, with the list_lru site selected for
#                  capture during N/4 more, its stacks
#   owner          page_owner against /proc/allocinfo (issue 36 item 3):
#                  build/distro-owner (the series build with PAGE_OWNER, its
#                  modules; resumable), booted with page_owner=on and =1 and
#                  the module set; distro/owner-guest.sh loads modules,
#                  copies files between ext4, xfs, btrfs and an overlay and
#                  runs a compile-like load, then writes /proc/allocinfo and
#                  page_owner grouped by stack to a blank fourth disk;
#                  distro/owner.py maps each stack to the call sites its
#                  first frame outside the page allocator holds and
#                  compares: distro/results/owner.txt.  owner-boot and
#                  owner-compare run one half
#   compare-config configure build/distro-base and build/distro-ml
#   compare-build  bzImage of build/distro-base, then of build/distro-ml
#   boot           series boots (QEMU TCG, 2 vCPUs, 4 GiB, a virtio disk each
#                  for ext4, xfs and btrfs, a virtio NIC):
#                    series-on:     sysctl.vm.mem_profiling=1; loads the
#                                   module set (modules.list), mounts the
#                                   disks, prints the memory figures, times
#                                   reads of /proc/allocinfo, then runs
#                                   guest/allocinfo.sh and guest/modules.sh
#                                   as they are
#                    series-off:    the same kernel booted =0: figures only
#                    series-icount: =1 under -icount shift=0: read cost in
#                                   guest instructions (maxcpus=1: 6.1
#                                   brings up no second vCPU under icount)
#   lean           build/distro-lean (the series built as the base is:
#                  bzImage, no modules) and build/distro-base, then boots
#                  lean-off (=0, figures, then switched to 1 at run time
#                  and figures again), lean-on (=1) and base: what
#                  profiling compiled in costs against the base
#   compare-boot   base, ml-on (=1), ml-icount: figures (no module set: the
#                  comparison kernels have no modules)
#   results        build/distro/results.txt and results.json
#   report         print the Markdown section for BENCHMARKS.md
#   all            build series, base and ml, boot, compare-boot, results
#                  and report (not deb, arm64*, containers, owner, lean)
#   queue [K...]   run the builds of kernels K (series, base, ml; default:
#                  base ml series) one after the other in the background
#                  (setsid nohup; log: build/distro-logs/queue.log); a lock
#                  keeps two distro builds from running at once
#   status         where each build is
#   amd64-full [COMMIT]
#                  Debian's full amd64 configuration (issue 56 item 4),
#                  from a snapshot, not build/linux: the repository at
#                  COMMIT cloned into build/amd64-full-repo, whose own
#                  tree.py makes build/amd64-full-build/linux (the base
#                  unpacked beside it once); no COMMIT: the snapshot of the
#                  last run (so a run goes on where the last one stopped),
#                  at first HEAD; a new COMMIT re-snapshots (tree.py
#                  rewrites only changed files, so make and ccache redo
#                  only what depends on them).  build/amd64-full-fixes/
#                  *.diff are applied to the snapshot and recorded (fixes
#                  proposed for files being edited elsewhere).  Then
#                  common.config + series.config, bzImage and every module
#                  into build/distro-amd64 (nice 19, -j2 -k, own ccache in
#                  build/ccache-amd64-full, 25 GB; own lock; log
#                  build/distro-logs/build-amd64-full.log), warnings, boot
#                  and results.  Sub-stages: amd64-full-snapshot,
#                  amd64-full-config and amd64-full-build [COMMIT];
#                  amd64-full-queue [COMMIT] runs the build and the
#                  warnings in the background (setsid nohup; log
#                  build/distro-logs/amd64-full-queue.log);
#                  amd64-full-status says where it is
#
# Boot logs: build/distro-logs/boot-*.log; build/distro-logs/modset.txt says
# which module of the set came from where.
set -u
here=$(cd "$(dirname "$0")" && pwd)
T=$(cd "$here/.." && pwd)
top=$(cd "$here/../../../.." && pwd)
B=$top/build
L=$B/distro-logs
ML_TAR=/usr/src/linux-source-6.12.tar.xz
ML_DIR=$B/bench-6.12
CFG61=/usr/src/linux-config-6.1/config.amd64_none_cloud-amd64.xz
CFG612=/usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz
# Debian's arm64 cloud configuration (Graviton, Ampere and other arm64
# clouds): linux-config-6.1:arm64, downloaded and unpacked by the deps
# stage, never installed.
CFGA64_DIR=$B/debcfg-arm64
CFGA64=$CFGA64_DIR/root/usr/src/linux-config-6.1/config.arm64_none_cloud-arm64.xz
# Debian's full amd64 configuration (amd64-full): a snapshot of this
# repository at one commit, its own patched tree and its own ccache.
CFGFULL=/usr/src/linux-config-6.1/config.amd64_none_amd64.xz
AF_REPO=$B/amd64-full-repo
AF_BUILD=$B/amd64-full-build
AF_FIXES=$B/amd64-full-fixes
AF_CCACHE=$B/ccache-amd64-full
JOBS=${DISTRO_JOBS:-2}
BOOT_TIMEOUT=${DISTRO_BOOT_TIMEOUT:-3600}
mkdir -p "$L"

# Options that must keep Debian's value after our fragments and
# olddefconfig: what the memory figures depend on.
KEEP="CONFIG_NUMA CONFIG_NODES_SHIFT CONFIG_NR_CPUS CONFIG_SMP CONFIG_MEMCG
CONFIG_MEMCG_KMEM CONFIG_LRU_GEN CONFIG_NUMA_BALANCING CONFIG_SPARSEMEM_VMEMMAP
CONFIG_FORTIFY_SOURCE CONFIG_JUMP_LABEL CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE
CONFIG_SLUB CONFIG_SLUB_DEBUG CONFIG_SLAB_FREELIST_HARDENED CONFIG_KFENCE
CONFIG_X86_5LEVEL CONFIG_MODULES CONFIG_MODULE_UNLOAD CONFIG_MODULE_SIG
CONFIG_HZ CONFIG_PREEMPT_VOLUNTARY CONFIG_INIT_ON_ALLOC_DEFAULT_ON"

say() { echo "distro: $*" >&2; }
die() { say "$*"; exit 1; }

# kernel KIND: set out, src, dcfg, frags, targets, arch, cross, image and
# testmods (where its test modules go) for a kernel.
kernel() {
	arch=x86_64 cross= image=arch/x86/boot/bzImage testmods=$B/distro-testmod
	initmods=$B/distro-initmods modroot=$B/distro-root
	lock=$L/.build.lock modlist=$here/modules.list
	case $1 in
	series)
		out=$B/distro src=$B/linux dcfg=$CFG61 targets="bzImage modules"
		frags=("$here/configs/common.config" "$here/configs/series.config") ;;
	base)
		out=$B/distro-base src=$B/pristine/linux-source-6.1 dcfg=$CFG61
		targets="bzImage"
		frags=("$here/configs/common.config" "$here/configs/builtin.config") ;;
	owner)
		out=$B/distro-owner src=$B/linux dcfg=$CFG61 targets="bzImage modules"
		testmods=$B/distro-testmod-owner initmods=$B/distro-initmods-owner
		modroot=$B/distro-root-owner
		frags=("$here/configs/common.config" "$here/configs/series.config"
			"$here/configs/owner.config") ;;
	lean)
		out=$B/distro-lean src=$B/linux dcfg=$CFG61 targets="bzImage"
		frags=("$here/configs/common.config" "$here/configs/builtin.config"
			"$here/configs/series.config") ;;
	arm64)
		out=$B/distro-arm64 src=$B/linux dcfg=$CFGA64 targets="Image modules"
		arch=arm64 cross=aarch64-linux-gnu- image=arch/arm64/boot/Image
		testmods=$B/distro-testmod-arm64 initmods=$B/distro-initmods-arm64
		modroot=$B/distro-root-arm64
		frags=("$here/configs/common.config" "$here/configs/series.config") ;;
	arm64-lean)
		out=$B/distro-arm64-lean src=$B/linux dcfg=$CFGA64 targets="Image"
		arch=arm64 cross=aarch64-linux-gnu- image=arch/arm64/boot/Image
		frags=("$here/configs/common.config" "$here/configs/builtin.config"
			"$here/configs/series.config") ;;
	arm64-base)
		out=$B/distro-arm64-base src=$B/pristine/linux-source-6.1
		dcfg=$CFGA64 targets="Image"
		arch=arm64 cross=aarch64-linux-gnu- image=arch/arm64/boot/Image
		frags=("$here/configs/common.config" "$here/configs/builtin.config") ;;
	amd64-full)
		# Its own lock: hours of building must not hold up the others.
		out=$B/distro-amd64 src=$AF_BUILD/linux dcfg=$CFGFULL
		targets="bzImage modules" lock=$L/.build-amd64-full.lock
		testmods=$B/distro-testmod-amd64 initmods=$B/distro-initmods-amd64
		modroot=$B/distro-root-amd64 modlist=$B/distro-amd64-modset/modules.list
		frags=("$here/configs/common.config" "$here/configs/series.config") ;;
	amd64-full-base)
		# The base configured alike, for single objects (warnings).
		out=$B/distro-amd64-base src=$AF_BUILD/pristine/linux-source-6.1
		dcfg=$CFGFULL targets="modules_prepare" lock=$L/.build-amd64-full.lock
		frags=("$here/configs/common.config") ;;
	ml)
		out=$B/distro-ml src=$ML_DIR/linux-source-6.12 dcfg=$CFG612
		targets="bzImage"
		frags=("$here/configs/common.config" "$here/configs/builtin.config"
			"$here/configs/ml.config") ;;
	*) die "unknown kernel '$1' (series, owner, lean, base, ml, arm64, arm64-lean, arm64-base, amd64-full, amd64-full-base)" ;;
	esac
}

mk() { # mk ARGS...: make in $out from $src, niced, with ccache
	# arm64: the 32-bit compat vDSO needs an arm compiler, as Debian's
	# build has one (COMPAT_VDSO=y).
	nice -n 19 make -C "$src" O="$out" ARCH="$arch" \
		${cross:+CROSS_COMPILE=$cross} CC="ccache ${cross}gcc" \
		${cross:+CROSS_COMPILE_COMPAT=arm-linux-gnueabihf-} \
		KBUILD_BUILD_HOST=allocprof "$@"
}

deps() {
	local want=(linux-config-6.1 linux-config-6.12 linux-source-6.12
		xz-utils kmod cpio busybox-static qemu-system-x86 ccache
		e2fsprogs xfsprogs btrfs-progs binutils python3
		dpkg-dev fakeroot rsync bc cpio libelf-dev libssl-dev)
	"$T/apt.sh" install "${want[@]}" || die "apt-get install failed"
}

# deps_arm64: the cross compiler, QEMU and arm64 busybox (as make deps
# gets them), and Debian's arm64 configurations, unpacked, not installed.
deps_arm64() {
	"$T/apt.sh" install gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf \
		qemu-system-arm || die "apt-get install failed"
	[ -x "$B/busybox-arm64/bin/busybox" ] || "$T/busybox-foreign.sh" arm64 "$B/busybox-arm64" ||
		die "no arm64 busybox (busybox-foreign.sh arm64)"
	[ -f "$CFGA64" ] && return 0
	say "linux-config-6.1:arm64: apt-get download, dpkg-deb -x into $CFGA64_DIR"
	rm -rf "$CFGA64_DIR" && mkdir -p "$CFGA64_DIR"
	(cd "$CFGA64_DIR" && apt-get download -q linux-config-6.1:arm64 >/dev/null 2>&1) ||
		{ "$T/apt.sh" update; (cd "$CFGA64_DIR" && apt-get download -q linux-config-6.1:arm64); } ||
		die "apt-get download linux-config-6.1:arm64 failed"
	dpkg-deb -x "$CFGA64_DIR"/linux-config-6.1_*_arm64.deb "$CFGA64_DIR/root" ||
		die "dpkg-deb -x failed"
	[ -f "$CFGA64" ] || die "$CFGA64 is not in the package"
}

# The sources.  build/linux is made by "make tree" (the Makefile's distro
# target depends on it); this script never rewrites it.
sources() {
	case $1 in
	series|owner|lean|base|arm64|arm64-lean|arm64-base)
		[ -f "$src/Makefile" ] || die "$src missing: run make tree first" ;;
	amd64-full|amd64-full-base)
		[ -f "$src/Makefile" ] || die "$src missing: run distro.sh amd64-full-snapshot first" ;;
	ml)
		if [ ! -f "$ML_DIR/.unpacked" ]; then
			say "unpacking $ML_TAR into $ML_DIR (once)"
			rm -rf "$ML_DIR" && mkdir -p "$ML_DIR"
			nice -n 19 tar -xf "$ML_TAR" -C "$ML_DIR" || die "tar failed"
			touch "$ML_DIR/.unpacked"
		fi ;;
	esac
}

# cfgval FILE OPTION: the option's value, "n" when not set or absent.
cfgval() {
	local v
	v=$(grep -E "^$2=" "$1" | head -1)
	[ -n "$v" ] && echo "${v#*=}" || echo n
}

configure() { # configure KIND
	kernel "$1"
	sources "$1"
	[ -f "$dcfg" ] || die "$dcfg missing (apt-get install linux-config-*)"
	local sum f line opt want bad=0 log=$L/config-$1.log
	sum=$( (cat "$dcfg" "${frags[@]}"; echo "$src $KEEP") | sha1sum | cut -c1-16)
	if [ -f "$out/.config" ] && [ "$(cat "$out/.distro-cfgsum" 2>/dev/null)" = "$sum" ]; then
		say "config $1: $out/.config up to date"
		return 0
	fi
	say "config $1: Debian's $(basename "$dcfg") + ${frags[*]##*/} in $out"
	mkdir -p "$out"
	rm -f "$out/.distro-cfgsum"
	xz -dc "$dcfg" >"$out/debian.config"
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/debian.config" \
		"${frags[@]}" >"$log" 2>&1 || die "config $1: merge_config failed ($log)"
	mk olddefconfig >>"$log" 2>&1 || die "config $1: olddefconfig failed ($log)"
	# Every line of our fragments must have stuck.
	for f in "${frags[@]}"; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=*) opt=${line%%=*} want=${line#*=} ;;
			"# CONFIG_"*" is not set") opt=${line#\# } opt=${opt%% *} want=n ;;
			*) continue ;;
			esac
			want=${want#\"} want=${want%\"}
			local got
			got=$(cfgval "$out/.config" "$opt")
			got=${got#\"} got=${got%\"}
			if [ "$got" != "$want" ]; then
				say "config $1: $(basename "$f"): $opt=$want did not stick (now $got)"
				bad=1
			fi
		done <"$f"
	done
	# What the figures depend on must be Debian's.
	for opt in $KEEP; do
		if [ "$(cfgval "$out/.config" "$opt")" != "$(cfgval "$out/debian.config" "$opt")" ]; then
			say "config $1: $opt is $(cfgval "$out/.config" "$opt"), Debian has $(cfgval "$out/debian.config" "$opt")"
			bad=1
		fi
	done
	"$src/scripts/diffconfig" "$out/debian.config" "$out/.config" >"$out/config-diff.txt" 2>/dev/null
	[ $bad = 0 ] || die "config $1: failed; see above"
	echo "$sum" >"$out/.distro-cfgsum"
	say "config $1: ok; $(wc -l <"$out/config-diff.txt") options differ from Debian's ($out/config-diff.txt)"
}

# build KIND: configure, then make the kernel's targets with -k (every
# error of the tree, not only the first).  Resumable: the O= folder is
# kept, ccache serves what another folder or an earlier run compiled.
build() {
	configure "$1" || exit 1
	kernel "$1"
	local log=$L/build-$1.log rc start end t
	exec 9>"$lock"
	if ! flock -n 9; then
		say "build $1: another distro build is running; waiting for it"
		flock 9
	fi
	start=$(date +%s)
	say "build $1: make $targets in $out (nice 19, -j$JOBS, ccache); log $log"
	echo "=== $(date -u '+%F %T') UTC: make -k -j$JOBS $targets" >>"$log"
	TIMEFORMAT='%R %U %S'
	{ time mk -k -j"$JOBS" $targets >>"$log" 2>&1; } 2>"$out/.distro-lasttime"
	rc=$?
	end=$(date +%s)
	t=$(tail -1 "$out/.distro-lasttime")
	# start end status wall user sys (user/sys: this make and its children)
	echo "$start $end $rc $t" >>"$out/distro-build-times"
	exec 9>&-
	# Errors of this session (earlier ones were retried); warnings of all.
	awk '/^=== /{buf=""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$log" |
		grep -E ': error: |^make\[[0-9]+\]: \*\*\* |Error [0-9]+$|undefined!?$|ERROR: ' \
		>"$out/build-errors.txt"
	# This session's part of the log only, as for the errors: earlier
	# sessions may have compiled other sources.
	awk '/^=== /{buf=""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$log" |
		grep -E ': warning: ' | sed "s|$src/||" | sort -u >"$out/build-warnings.txt"
	local nko norder
	nko=$(find "$out" -name '*.ko' | wc -l)
	norder=$(cat "$out/modules.order" 2>/dev/null | wc -l)
	say "build $1: status $rc after $((end - start)) s; $nko .ko of $norder in modules.order;" \
		"$(wc -l <"$out/build-errors.txt") error lines, $(wc -l <"$out/build-warnings.txt") warnings"
	if [ $rc = 0 ]; then
		echo "$end" >"$out/.distro-built"
	else
		rm -f "$out/.distro-built"
		head -40 "$out/build-errors.txt" >&2
	fi
	return $rc
}

# ---------------------------------------------------------------------
# Boot

# The module set: modules.list, resolved against build/distro's modules
# (modules_install into build/distro-root, then only what the set needs,
# with its dependencies, into build/distro-initmods/lib/modules/RELEASE,
# indexed by depmod, for busybox modprobe in the guest).
modset() { # modset [KIND]: series (default) or arm64
	kernel "${1:-series}"
	[ -f "$out/.distro-built" ] || die "$out is not built (distro.sh build-${1:-series})"
	local rel root=$modroot im=$initmods
	rel=$(cat "$out/include/config/kernel.release")
	if [ ! -f "$root/.stamp-$rel" ] ||
		[ -n "$(find "$out" -name '*.ko' -newer "$root/.stamp-$rel" | head -1)" ]; then
		say "modules_install into $root"
		rm -rf "$root"
		mk INSTALL_MOD_PATH="$root" modules_install >"$L/modules_install.log" 2>&1 ||
			die "modules_install failed ($L/modules_install.log)"
		touch "$root/.stamp-$rel"
	fi
	modset_into "$root" "$rel" "$im" "$L/modset$([ "${1:-series}" = series ] || echo "-$1").txt" \
		"$modlist"
}

# modset_into ROOT RELEASE DIR LIST [MODULES]: the module set of
# modules.list (or MODULES), with its dependencies, from ROOT/lib/modules/
# RELEASE into DIR/lib/modules/RELEASE, indexed by depmod; LIST says where
# each module came from.
modset_into() {
	local root=$1 rel=$2 im=$3 list=$4 ml=${5:-$here/modules.list} m line path n
	rm -rf "$im"
	mkdir -p "$im/lib/modules/$rel"
	: >"$list"
	for m in $(sed 's/#.*//' "$ml"); do
		if ! modprobe -d "$root" -S "$rel" --show-depends "$m" \
			>"$L/.dep" 2>/dev/null; then
			echo "$m: not in this configuration" >>"$list"
			continue
		fi
		n=0
		while read -r line; do
			case $line in
			builtin*) echo "$m: built in" >>"$list" ;;
			insmod*)
				path=$(echo "$line" | awk '{print $2}')
				path=${path#"$root/lib/modules/$rel/"}
				mkdir -p "$im/lib/modules/$rel/$(dirname "$path")"
				cp "$root/lib/modules/$rel/$path" "$im/lib/modules/$rel/$path"
				n=$((n + 1)) ;;
			esac
		done <"$L/.dep"
		[ $n = 0 ] || echo "$m: module, $n .ko with its dependencies" >>"$list"
	done
	for f in modules.builtin modules.builtin.modinfo modules.order; do
		cp "$root/lib/modules/$rel/$f" "$im/lib/modules/$rel/" 2>/dev/null
	done
	depmod -b "$im" "$rel" || die "depmod failed"
	say "module set: $(find "$im" -name '*.ko' | wc -l) .ko files ($(du -sh "$im" | cut -f1)); $list"
}

# The test modules of ../modules, built against build/distro (or KIND's).
testmod() {
	kernel "${1:-series}"
	local tm=$testmods
	rm -rf "$tm" && mkdir -p "$tm" && cp "$T"/modules/* "$tm"/
	python3 "$T/modules/gen-many.py" 2000 >"$tm/allocprof_many.c"
	nice -n 19 make -C "$out" ARCH="$arch" ${cross:+CROSS_COMPILE=$cross} \
		M="$tm" -j"$JOBS" modules >"$L/testmod.log" 2>&1 ||
		{ tail -20 "$L/testmod.log"; die "test modules do not build against $out"; }
}

# Disk images, new for every boot so that every boot starts alike.
images() { # images [EXT4_SIZE]: the ext4 disk's size, 256M by default
	local d=$B/distro-img
	mkdir -p "$d"
	rm -f "$d"/*.img
	truncate -s "${1:-256M}" "$d/ext4.img" && mkfs.ext4 -q -F -L dext4 "$d/ext4.img" ||
		die "mkfs.ext4 failed"
	truncate -s 512M "$d/xfs.img" && mkfs.xfs -q -f -L dxfs "$d/xfs.img" >/dev/null ||
		die "mkfs.xfs failed"
	truncate -s 512M "$d/btrfs.img" && mkfs.btrfs -q -f -L dbtrfs "$d/btrfs.img" >/dev/null ||
		die "mkfs.btrfs failed"
	QEMU_EXTRA="-drive file=$d/ext4.img,format=raw,if=virtio"
	QEMU_EXTRA+=" -drive file=$d/xfs.img,format=raw,if=virtio"
	QEMU_EXTRA+=" -drive file=$d/btrfs.img,format=raw,if=virtio"
	QEMU_EXTRA+=" -netdev user,id=n0 -device virtio-net-pci,netdev=n0"
}

# bootone KIND TAG "APPEND" [icount]: one boot of KIND's bzImage, console in
# build/distro-logs/boot-TAG.log.  The host load average goes with it: the
# wall-clock figures depend on it, the -icount ones do not.
bootone() {
	local kind=$1 tag=$2 append=$3 icount=${4:-} rc
	kernel "$kind"
	local k=$out/$image
	if [ ! -f "$out/.distro-built" ] || [ ! -f "$k" ]; then
		say "boot $tag: skipped, $out is not built (distro.sh build-$kind)"
		return 0
	fi
	images
	local args=(-k "$k" -s "$here/guest.sh" -f "$T/guest/lib.sh"
		-f "$modlist" -t "$BOOT_TIMEOUT" -c 2 -m 4096
		-l "$L/boot-$tag.log")
	if [ "$kind" = series ] || [ "$kind" = arm64 ] || [ "$kind" = amd64-full ]; then
		args+=(-f "$initmods/lib" -f "$T/guest/allocinfo.sh"
			-f "$T/guest/modules.sh")
		for f in allocprof_test allocprof_holder allocprof_many; do
			args+=(-f "$testmods/$f.ko")
		done
	fi
	# qemu-system-aarch64 -M virt: the disks and NIC as extra arguments
	# (the PATH wrapper is for qemu-system-x86_64).
	[ "$arch" = arm64 ] && args+=(-r arm64 -x "$QEMU_EXTRA")
	if [ -n "$icount" ]; then
		# As bench/: the guest TSC counts instructions at 1 GHz.  Under
		# -icount QEMU 7.2 never finishes bringing up a 6.1 kernel's
		# second vCPU (BENCHMARKS.md, "Scale"), so only the boot CPU is
		# brought up; both CPUs stay possible, as in the other boots,
		# so allocinfo sums the same number of per-CPU counters.
		append="tsc_early_khz=1000000 tsc=reliable maxcpus=1 $append"
	fi
	say "boot $tag: $k, $append"
	echo "$(date +%s) $(cut -d' ' -f1-3 /proc/loadavg)" >"$L/boot-$tag.host"
	PATH="$here/qemu:$PATH" DISTRO_QEMU_EXTRA="$QEMU_EXTRA" \
		DISTRO_ICOUNT=$([ -n "$icount" ] && echo 1 || echo 0) \
		"$T/qemu-run.sh" "${args[@]}" -a "$append" >/dev/null 2>"$L/boot-$tag.err"
	rc=$?
	echo "$(date +%s) $(cut -d' ' -f1-3 /proc/loadavg) $rc" >>"$L/boot-$tag.host"
	say "boot $tag: status $rc; $(grep -ac '^PASS: ' "$L/boot-$tag.log") PASS," \
		"$(grep -ac '^FAIL: ' "$L/boot-$tag.log") FAIL, $(grep -ac '^SKIP: ' "$L/boot-$tag.log") SKIP"
	grep -a '^FAIL: ' "$L/boot-$tag.log" >&2
	return 0
}

# arm64: Debian's arm64 cloud configuration, as series: boots under
# qemu-system-aarch64 -M virt -cpu max (TCG), =1 with the checks, then =0.
boot_arm64() {
	modset arm64
	testmod arm64
	bootone arm64 arm64-on "sysctl.vm.mem_profiling=1 distro_mode=series"
	bootone arm64 arm64-off "sysctl.vm.mem_profiling=0 distro_mode=figures"
}

boot_series() {
	modset
	testmod
	bootone series series-on "sysctl.vm.mem_profiling=1 distro_mode=series"
	bootone series series-off "sysctl.vm.mem_profiling=0 distro_mode=figures"
	bootone series series-icount "sysctl.vm.mem_profiling=1 distro_mode=icount" icount
}

# The series built as the base is (bzImage, no modules): what compiled in
# and off costs against the base, booted =0 (then switched on), and =1.
# boot_lean [KIND]: lean (default) or arm64-lean, booted KIND-off and KIND-on.
boot_lean() {
	local k=${1:-lean}
	bootone "$k" "$k-off" "sysctl.vm.mem_profiling=0 distro_mode=switch"
	bootone "$k" "$k-on" "sysctl.vm.mem_profiling=1 distro_mode=compare"
}

boot_compare() {
	bootone base base "distro_mode=compare"
	bootone ml ml-on "sysctl.vm.mem_profiling=1 distro_mode=compare"
	bootone ml ml-icount "sysctl.vm.mem_profiling=1 distro_mode=icount" icount
}

# ---------------------------------------------------------------------
# Packages (issue 36 item 2)

# guestrun TAG KERNEL SCRIPT APPEND [-f FILE]...: boot KERNEL (x86_64, QEMU
# TCG, 2 vCPUs, 4 GiB) with guest SCRIPT, lib.sh and FILEs, console in
# build/distro-logs/boot-TAG.log; says the PASS and FAIL counts and
# returns the guest's status.
guestrun() {
	local tag=$1 k=$2 script=$3 append=$4 rc log=$L/boot-$1.log
	shift 4
	"$T/qemu-run.sh" -k "$k" -s "$script" -f "$T/guest/lib.sh" "$@" \
		-t "$BOOT_TIMEOUT" -c 2 -m 4096 -l "$log" -a "$append" \
		>/dev/null 2>"$L/boot-$tag.err"
	rc=$?
	say "$tag: boot status $rc; $(grep -ac '^PASS: ' "$log") PASS," \
		"$(grep -ac '^FAIL: ' "$log") FAIL (log $log)"
	grep -a '^FAIL: ' "$log" >&2
	return $rc
}

DEB=$B/distro-deb

# deb_build: linux-image, linux-headers and linux-libc-dev .deb files of
# build/distro with the kernel's bindeb-pkg, into build/distro-deb.  Built
# by the same make as the build stage (same variables, so nothing is
# compiled again), gzip-compressed (xz takes minutes more on two cores).
deb_build() {
	build series || exit 1
	kernel series
	local rel log=$L/deb-build.log f
	rel=$(cat "$out/include/config/kernel.release")
	if [ -f "$DEB/.built-$rel" ] && [ "$DEB/.built-$rel" -nt "$out/.distro-built" ]; then
		say "deb: packages of $rel up to date in $DEB"
		return 0
	fi
	mkdir -p "$DEB"
	rm -f "$DEB"/*.deb "$DEB"/.built-* "$B"/linux-*.deb "$B"/linux-upstream_*
	say "deb: make bindeb-pkg in $out (log $log)"
	# -d: dpkg-buildpackage would insist on the Build-Depends being
	# installed as packages; deps installed what the build needs.
	mk -j"$JOBS" bindeb-pkg KDEB_COMPRESS=gzip DPKG_FLAGS=-d >"$log" 2>&1 ||
		{ tail -30 "$log"; die "deb: bindeb-pkg failed ($log)"; }
	for f in "$B"/linux-*.deb "$B"/linux-upstream_*; do
		[ -e "$f" ] && mv "$f" "$DEB"/
	done
	ls "$DEB"/linux-image-"$rel"_*.deb "$DEB"/linux-headers-"$rel"_*.deb \
		>/dev/null 2>&1 || die "deb: no linux-image or linux-headers package of $rel in $DEB"
	touch "$DEB/.built-$rel"
	say "deb: $(cd "$DEB" && ls -s --block-size=M ./*.deb | tr '\n' ' ')"
}

# deb_check: what a user does with the packages, in a scratch root: unpack
# linux-image and linux-headers (dpkg -x, as dpkg would install them), build
# two external modules against the headers, boot the packaged kernel with
# the packaged modules of the module set, load the external modules there.
deb_check() {
	kernel series
	local rel root=$DEB/root em=$DEB/extmod p log=$L/deb-extmod.log
	rel=$(cat "$out/include/config/kernel.release")
	[ -f "$DEB/.built-$rel" ] || die "deb: no packages of $rel (distro.sh deb-build)"
	rm -rf "$root" && mkdir -p "$root"
	for p in linux-image linux-headers; do
		dpkg -x "$(ls "$DEB/$p-${rel}_"*.deb | head -1)" "$root" ||
			die "deb: dpkg -x $p failed"
	done
	[ -f "$root/boot/vmlinuz-$rel" ] || die "deb: no boot/vmlinuz-$rel in the image package"
	# bindeb-pkg's modules_install ran depmod; dpkg would run it too.
	[ -s "$root/lib/modules/$rel/modules.dep" ] || depmod -b "$root" "$rel" ||
		die "deb: depmod failed"
	say "deb: unpacked into $root: $(find "$root/lib/modules/$rel" -name '*.ko' | wc -l) modules," \
		"headers $(du -sh "$root/usr/src/linux-headers-$rel" | cut -f1)"
	rm -rf "$em" && mkdir -p "$em"
	cp "$T/modules/allocprof_holder.c" "$T/modules/allocprof_test.c" "$em"/
	echo "obj-m := allocprof_holder.o allocprof_test.o" >"$em/Kbuild"
	# As a user would: make against /lib/modules/RELEASE/build, which the
	# headers package points at /usr/src/linux-headers-RELEASE.
	nice -n 19 make -C "$root/usr/src/linux-headers-$rel" M="$em" modules >"$log" 2>&1 ||
		{ tail -20 "$log"; die "deb: external modules do not build against linux-headers-$rel ($log)"; }
	say "deb: external modules built against linux-headers-$rel: $(cd "$em" && ls ./*.ko | tr '\n' ' ')"
	modset_into "$root" "$rel" "$DEB/initmods" "$L/deb-modset.txt"
	say "deb: boot $root/boot/vmlinuz-$rel"
	guestrun deb "$root/boot/vmlinuz-$rel" "$here/deb-guest.sh" "deb_rel=$rel" \
		-f "$here/modules.list" -f "$DEB/initmods/lib" \
		-f "$em/allocprof_holder.ko" -f "$em/allocprof_test.ko"
}

# containers [N]: issue 36 item 4, the containers use case on build/distro:
# distro/containers-guest.sh makes N memory cgroups (default 200) that each
# mount a tmpfs and an overlay and touch files, then shows what allocinfo
# says they added and which callers capture names for the list_lru site.
# Console: build/distro-logs/boot-containers.log.
containers() {
	local n=${1:-200} tool=$B/allocinfo/allocinfo-static
	modset
	if [ ! -x "$tool" ]; then
		mkdir -p "$B/allocinfo"
		gcc -static -O2 -Wall -o "$tool" "$top"/tools/vm/allocinfo*.c ||
			die "containers: the allocinfo tool does not build"
	fi
	kernel series
	say "containers: boot $out/$image with $n memory cgroups"
	guestrun containers "$out/$image" "$here/containers-guest.sh" \
		"containers=$n" -f "$initmods/lib" -f "$tool"
}

# owner: issue 36 item 3, the page totals of /proc/allocinfo against
# page_owner's.  build/distro-owner (build/distro plus PAGE_OWNER) booted
# with page_owner=on and =1, the module set and a fourth, blank disk;
# distro/owner-guest.sh runs the workload and writes allocinfo and
# page_owner (grouped by stack) to that disk as a tar, unpacked into
# build/distro-owner/owner; distro/owner.py then maps page_owner's stacks
# to call sites and writes the comparison to distro/results/owner.txt.
# owner-boot and owner-compare run one part (the comparison again on the
# same data).
OWN=$B/distro-owner/owner
owner_boot() {
	build owner || exit 1
	modset owner
	kernel owner
	# ext4 holds the source tree, a 128 MB file and the overlay's copies.
	images 1G
	local d=$B/distro-img
	truncate -s 64M "$d/out.img"
	say "owner: boot $out/$image with page_owner=on"
	guestrun owner "$out/$image" "$here/owner-guest.sh" \
		"page_owner=on sysctl.vm.mem_profiling=1" \
		-f "$initmods/lib" -f "$here/modules.list" \
		-x "$QEMU_EXTRA -drive file=$d/out.img,format=raw,if=virtio"
	local rc=$?
	rm -rf "$OWN" && mkdir -p "$OWN"
	tar -xf "$d/out.img" -C "$OWN" 2>/dev/null && [ -s "$OWN/page_owner" ] ||
		die "owner: no results on the fourth disk (status $rc)"
	say "owner: results in $OWN: $(ls "$OWN" | tr '\n' ' ')"
	return $rc
}
owner_compare() {
	kernel owner
	[ -s "$OWN/page_owner" ] || die "owner: no results (distro.sh owner-boot)"
	local rc=0
	python3 "$here/owner.py" --build "$out" --results "$OWN" \
		>"$here/results/owner.txt" || rc=$?
	cat "$here/results/owner.txt"
	# 1: compared, the goal not met; anything else: no comparison.
	[ $rc = 0 ] || [ $rc = 1 ] || die "owner: owner.py failed (status $rc)"
	return $rc
}

# ---------------------------------------------------------------------
# Debian's full amd64 configuration (issue 56 item 4)

# af_env: amd64-full's own ccache, so that Debian's ~4,000 modules do not
# evict the default cache make check and make kernel use.
af_env() {
	export CCACHE_DIR=$AF_CCACHE
	if ! grep -q '^max_size' "$AF_CCACHE/ccache.conf" 2>/dev/null; then
		mkdir -p "$AF_CCACHE"
		ccache -M 25G >/dev/null || die "amd64-full: ccache -M failed"
	fi
}

# af_snapshot [COMMIT]: the repository at COMMIT cloned into
# build/amd64-full-repo; that snapshot's own tree.py then makes
# build/amd64-full-build/linux (the base unpacked beside it once), so the
# build never reads build/linux, which make tree rewrites under it.  No
# COMMIT: the snapshot taken before (a run goes on where the last one
# stopped), else HEAD.  A new COMMIT re-snapshots: tree.py rewrites only
# the files that changed, so make and ccache redo only what depends on
# them.  build/amd64-full-fixes/*.diff, changes proposed for files this
# stage must not edit in the repository, are applied on top (git apply,
# in name order) and recorded.  build/amd64-full-build/snapshot.txt says
# what was built.
af_snapshot() {
	local want=${1:-} sha f rec=$AF_BUILD/snapshot.txt
	kernel amd64-full
	# Never under a running build.
	exec 9>"$lock"
	flock -n 9 || die "amd64-full: a build is running (distro.sh amd64-full-status)"
	if [ -z "$want" ] && [ -f "$rec" ]; then
		sha=$(awk '$1 == "commit" {print $2}' "$rec")
	else
		sha=$(git -C "$top" rev-parse -q --verify "${want:-HEAD}^{commit}") ||
			die "amd64-full: no commit '${want:-HEAD}' in $top"
	fi
	if [ ! -d "$AF_REPO/.git" ]; then
		rm -rf "$AF_REPO"
		git clone -q --no-checkout "$top" "$AF_REPO" ||
			die "amd64-full: git clone $top failed"
	fi
	git -C "$AF_REPO" cat-file -e "$sha^{commit}" 2>/dev/null ||
		git -C "$AF_REPO" fetch -q "$top" "$sha" ||
		die "amd64-full: git fetch $sha failed"
	# git rewrites only the files that differ; fixes applied last time
	# are undone first, then applied again.
	{ ! git -C "$AF_REPO" rev-parse -q --verify HEAD >/dev/null ||
		git -C "$AF_REPO" reset -q --hard; } &&
		git -C "$AF_REPO" checkout -q -f --detach "$sha" &&
		git -C "$AF_REPO" clean -q -fdx ||
		die "amd64-full: git checkout $sha failed"
	mkdir -p "$AF_BUILD"
	echo "commit $sha $(git -C "$AF_REPO" log -1 --format='%cI %s')" >"$rec.new"
	for f in "$AF_FIXES"/*.diff; do
		[ -f "$f" ] || continue
		# --index: tree.py takes the files git tracks.
		git -C "$AF_REPO" apply --index "$f" || die "amd64-full: $f does not apply to $sha"
		echo "fix $(basename "$f") $(sha1sum <"$f" | cut -c1-12)" >>"$rec.new"
	done
	say "amd64-full: snapshot $(cut -c1-60 "$rec.new" | tr '\n' ' ')"
	ALLOCPROF_BUILD=$AF_BUILD nice -n 19 python3 \
		"$AF_REPO/tools/testing/allocprof/tree.py" tree >&2 ||
		die "amd64-full: tree.py tree failed"
	mv "$rec.new" "$rec"
	exec 9>&-
}

# af_build [COMMIT]: snapshot, configure and build (bzImage, every module;
# resumable).  The commit a finished build came from goes into
# build/distro-amd64/snapshot-built.txt.
af_build() {
	af_env
	af_snapshot "${1:-}"
	kernel amd64-full
	build amd64-full
	local rc=$?
	[ $rc = 0 ] && cp "$AF_BUILD/snapshot.txt" "$out/snapshot-built.txt"
	return $rc
}

# af_warnings: the warnings the series adds.  Building the base with
# Debian's full configuration too would double hours of CPU, so only the
# objects that warn are compared: every object the build log names in a
# warning (the file compiled, or the .c a warning header was included
# from, or objtool's object) is compiled again alone in build/distro-amd64
# (ccache gives the compiler's warnings back; objtool runs again) and in
# build/distro-amd64-base, the pristine base configured the same
# (common.config, no series.config), with make O=... path/file.o.  A
# warning is "file: warning: text [-Wflag]" without line and column (the
# series moves lines); added = in the series' object, not in the base's.
# Results in build/distro-amd64/warnings/: all.txt (every warning of the
# build log), objects.txt, obj/*.series and *.base (the compiler's output),
# added.txt, modpost.txt (modpost's warnings: the base links no modules to
# compare with, so they are listed for reading) and summary.txt.
af_warnings() {
	kernel amd64-full
	local sout=$out ssrc=$src log=$L/build-amd64-full.log w=$out/warnings o r n=0 t
	[ -f "$log" ] || die "amd64-full: no build log ($log)"
	exec 9>"$lock"
	flock -n 9 || { say "amd64-full: a build is running; waiting for it"; flock 9; }
	configure amd64-full-base || exit 1
	kernel amd64-full-base
	local bout=$out bsrc=$src
	if [ ! -f "$bout/.distro-prepared" ] || [ "$bout/.config" -nt "$bout/.distro-prepared" ]; then
		say "amd64-full: make modules_prepare in $bout"
		mk -j"$JOBS" modules_prepare >"$L/amd64-full-base-prepare.log" 2>&1 ||
			die "amd64-full: modules_prepare of the base failed ($L/amd64-full-base-prepare.log)"
		touch "$bout/.distro-prepared"
	fi
	mkdir -p "$w/obj"
	# Every warning of the build (all sessions), source prefix dropped.
	grep -a ': warning: ' "$log" | sed "s|$ssrc/||" | sort -u >"$w/all.txt"
	grep -a '^WARNING: ' "$log" | sort -u >"$w/modpost.txt"
	{
		grep -aoE "^$ssrc/[^ :]+\.[cS]:[0-9]+:[0-9]+: warning: " "$log" |
			sed -E "s|^$ssrc/||; s|\.[cS]:.*|.o|"
		grep -aoE "(In file included from|^ +from) $ssrc/[^ :]+\.[cS]:[0-9]+[:,]" "$log" |
			sed -E "s|.* $ssrc/||; s|\.[cS]:.*|.o|"
		grep -aoE "^[^ :]+\.o: warning: objtool: " "$log" | sed 's|: warning: .*||'
	} | sort -u | grep -vE '^(scripts|tools)/|^vmlinux\.o$' >"$w/objects.txt"
	# Host programs and vmlinux.o cannot be compiled alone here: listed.
	grep -E '^(scripts|tools)/|^vmlinux\.o: ' "$w/all.txt" >"$w/other.txt"
	say "amd64-full: $(wc -l <"$w/all.txt") distinct warnings in the build log," \
		"$(wc -l <"$w/objects.txt") objects to compare with the base"
	while read -r o; do
		r=$w/obj/$(echo "$o" | tr / _)
		# Done before, and the object not built again since.
		[ -s "$r.base" ] && [ "$r.base" -nt "$sout/$o" ] && continue
		n=$((n + 1))
		kernel amd64-full
		rm -f "$out/$o"
		mk "$o" >"$r.series" 2>&1
		echo "exit $?" >>"$r.series"
		kernel amd64-full-base
		mk "$o" >"$r.base" 2>&1
		echo "exit $?" >>"$r.base"
	done <"$w/objects.txt"
	# Normalised: file: warning: text, without the source prefix, line and
	# column.
	for t in series base; do
		for r in "$w"/obj/*."$t"; do
			[ -f "$r" ] || continue
			grep -a ': warning: ' "$r" |
				sed -E "s|$ssrc/||; s|$bsrc/||; s|^([^ :]+):[0-9]+:[0-9]+: |\1: |; s|^([^ :]+):[0-9]+: |\1: |"
		done | sort -u >"$w/$t.txt"
	done
	comm -23 "$w/series.txt" "$w/base.txt" >"$w/added.txt"
	{
		echo "build log: $(wc -l <"$w/all.txt") distinct warnings from $(wc -l <"$w/objects.txt") objects"
		echo "compiled alone: series $(wc -l <"$w/series.txt"), base $(wc -l <"$w/base.txt") distinct warnings"
		echo "added by the series: $(wc -l <"$w/added.txt")"
		echo "modpost warnings: $(wc -l <"$w/modpost.txt")"
		echo "not compared (host programs, vmlinux.o): $(wc -l <"$w/other.txt")"
	} >"$w/summary.txt"
	exec 9>&-
	say "amd64-full: warnings ($n objects compiled now): $(tr '\n' ';' <"$w/summary.txt")"
	[ -s "$w/added.txt" ] && sed 's/^/  added: /' "$w/added.txt" >&2
	return 0
}

# af_boot: build/distro-amd64 booted as the boot stage boots build/distro
# (QEMU TCG, 2 vCPUs, 4 GiB, three disks, a NIC): amd64-full-on with
# sysctl.vm.mem_profiling=1, the module set of modules.list and
# amd64-full-modules.list, then guest/allocinfo.sh and guest/modules.sh;
# amd64-full-off, =0 as Debian would ship it, the same modules, figures.
af_boot() {
	kernel amd64-full
	mkdir -p "$(dirname "$modlist")"
	cat "$here/modules.list" "$here/amd64-full-modules.list" >"$modlist"
	modset amd64-full
	testmod amd64-full
	bootone amd64-full amd64-full-on "sysctl.vm.mem_profiling=1 distro_mode=series"
	bootone amd64-full amd64-full-off "sysctl.vm.mem_profiling=0 distro_mode=figures"
}

# af_results: distro/results/amd64-full.txt from the build, the warnings
# and the boots.
af_results() {
	kernel amd64-full
	local f=$here/results/amd64-full.txt w=$out/warnings tag log snap
	snap=$out/snapshot-built.txt
	[ -f "$snap" ] || snap=$AF_BUILD/snapshot.txt
	{
		echo "# distro.sh amd64-full, $(date -u '+%-d %b %Y'): Debian's config.amd64_none_amd64" \
			"(linux-config-6.1 $(dpkg-query -W -f '${Version}' linux-config-6.1 2>/dev/null))" \
			"+ configs/common.config + configs/series.config, built from a snapshot of the repository"
		sed 's/^/snapshot: /' "$snap" 2>/dev/null
		echo "== build (build/distro-amd64)"
		if [ -f "$out/.distro-built" ]; then
			echo "status: built, every target"
		else
			echo "status: not finished or failed (distro.sh amd64-full-status)"
		fi
		echo "modules: $(find "$out" -name '*.ko' | wc -l) .ko built;" \
			"$(cat "$out/modules.order" 2>/dev/null | wc -l) in modules.order;" \
			"$(grep -c '=m$' "$out/.config") options =m"
		[ -f "$out/$image" ] && echo "bzImage: $(stat -c %s "$out/$image") bytes"
		echo "objects: $(find "$out" -name '*.o' | wc -l) .o"
		awk '{w += $4; c += $5 + $6; n++} END {printf "sessions: %d, %.1f h wall, %.1f h CPU (user+sys) at nice 19, -j2\n", n, w / 3600, c / 3600}' \
			"$out/distro-build-times" 2>/dev/null
		echo "error lines of the last session: $(cat "$out/build-errors.txt" 2>/dev/null | wc -l)"
		echo "== warnings (distro.sh amd64-full-warnings)"
		if [ -f "$w/summary.txt" ]; then
			cat "$w/summary.txt"
			sed 's/^/added: /' "$w/added.txt"
			sed 's/^/not compared: /' "$w/other.txt"
		else
			echo "not compared yet"
		fi
		for tag in amd64-full-on amd64-full-off; do
			log=$L/boot-$tag.log
			echo "== boot $tag"
			if [ ! -f "$log" ]; then
				echo "not booted"
				continue
			fi
			echo "$(grep -ac '^PASS: ' "$log") PASS, $(grep -ac '^FAIL: ' "$log") FAIL," \
				"$(grep -ac '^SKIP: ' "$log") SKIP; status $(awk '{print $NF}' "$L/boot-$tag.host" | tail -1)"
			echo "modules of the set: $(grep -ac '^DISTRO-MODULE .* loaded' "$log") loaded," \
				"$(grep -ac '^DISTRO-MODULE .* builtin' "$log") built in," \
				"$(grep -ac '^DISTRO-MODULE .* failed' "$log") failed"
			grep -a -E '^FAIL: |^DISTRO-MODULE .* failed|^DISTRO-(UNAME|PROFILING|SITES|LSMOD|SYSRQM|MOUNT|VIRTIO|DONE)' "$log" | tr -d '\r'
		done
	} >"$f"
	cat "$f"
}

# af_queue [COMMIT]: af_build in the background (setsid nohup, as queue;
# log build/distro-logs/amd64-full-queue.log), then the warnings.
af_queue() {
	setsid nohup bash -c '
		echo "amd64-full queue: $(date -u "+%F %T") build ${1:-}"
		"$0" amd64-full-build "$@" && "$0" amd64-full-warnings
		echo "amd64-full queue: $(date -u "+%F %T") status $?"' \
		"$here/distro.sh" "$@" >>"$L/amd64-full-queue.log" 2>&1 </dev/null &
	echo $! >"$L/amd64-full-queue.pid"
	say "amd64-full: building in the background (pid $!, log $L/amd64-full-queue.log)"
}

# af_status: where the amd64-full build is.
af_status() {
	kernel amd64-full
	local log=$L/build-amd64-full.log
	[ -f "$AF_BUILD/snapshot.txt" ] && sed 's/^/snapshot: /' "$AF_BUILD/snapshot.txt"
	if [ -f "$out/.distro-built" ]; then
		echo "amd64-full: built ($out), $(find "$out" -name '*.ko' | wc -l) .ko"
	elif [ -f "$out/.config" ]; then
		echo "amd64-full: $(find "$out" -name '*.o' | wc -l) .o," \
			"$(find "$out" -name '*.ko' | wc -l) .ko of $(grep -c '=m$' "$out/.config") =m options;" \
			"$(grep -ac ': error: ' "$log" 2>/dev/null) error lines in $log;" \
			"last line: $(tail -1 "$log" 2>/dev/null)"
	else
		echo "amd64-full: not configured"
	fi
	[ -f "$out/distro-build-times" ] && sed 's/^/  session: /' "$out/distro-build-times"
	[ -f "$L/amd64-full-queue.pid" ] && kill -0 "$(cat "$L/amd64-full-queue.pid")" 2>/dev/null &&
		echo "amd64-full queue running (pid $(cat "$L/amd64-full-queue.pid"))"
	du -sh "$out" "$AF_CCACHE" 2>/dev/null | tr '\t' ' '
	return 0
}

results() { python3 "$here/results.py" results; }
report() { python3 "$here/results.py" report; }

queue() {
	local kinds=("$@")
	[ ${#kinds[@]} -gt 0 ] || kinds=(base ml series)
	setsid nohup bash -c '
		for k in "$@"; do
			echo "queue: $(date -u "+%F %T") build $k"
			"'"$here/distro.sh"'" "build-$k"
			echo "queue: $(date -u "+%F %T") build $k: status $?"
		done' queue "${kinds[@]}" >>"$L/queue.log" 2>&1 </dev/null &
	echo $! >"$L/queue.pid"
	say "queue: building ${kinds[*]} in the background (pid $!, log $L/queue.log)"
}

status() {
	local k
	for k in series owner lean base ml arm64 arm64-lean arm64-base; do
		kernel "$k"
		if [ -f "$out/.distro-built" ]; then
			echo "$k: built ($out), $(find "$out" -name '*.ko' | wc -l) .ko"
		elif [ ! -f "$L/build-$k.log" ]; then
			[ -f "$out/.config" ] && echo "$k: configured, not built yet" ||
				echo "$k: not configured"
		elif [ -f "$out/.config" ]; then
			echo "$k: in progress or stopped: $(find "$out" -name '*.o' | wc -l) .o," \
				"$(find "$out" -name '*.ko' | wc -l) .ko; last log line:" \
				"$(tail -1 "$L/build-$k.log" 2>/dev/null)"
		else
			echo "$k: not configured"
		fi
		[ -f "$out/distro-build-times" ] && sed 's/^/  session: /' "$out/distro-build-times"
	done
	[ -f "$L/queue.pid" ] && kill -0 "$(cat "$L/queue.pid")" 2>/dev/null &&
		echo "queue running (pid $(cat "$L/queue.pid")): $(tail -1 "$L/queue.log")"
	return 0
}

# The stages, in a function called on the last line: bash reads a script
# as it runs it, so a distro.sh edited while a build runs must not be read
# again after the build.
main() {
	[ $# -gt 0 ] || set -- all
	cd "$top" || exit 1
	while [ $# -gt 0 ]; do
		stage=$1; shift
		case $stage in
		deps) deps ;;
		config) deps; configure series || exit 1 ;;
		build) deps; build series || exit 1 ;;
		build-series|build-lean|build-base|build-ml|build-owner) build "${stage#build-}" || exit 1 ;;
		config-arm64) deps; deps_arm64; configure arm64 || exit 1 ;;
		build-arm64) deps; deps_arm64; build arm64 || exit 1 ;;
		boot-arm64) boot_arm64 ;;
		arm64) deps; deps_arm64; build arm64 || exit 1; boot_arm64 ;;
		arm64-base) deps; deps_arm64; build arm64-base || exit 1
			bootone arm64-base arm64-base "distro_mode=compare" ;;
		arm64-lean) deps; deps_arm64; build arm64-lean || exit 1
			boot_lean arm64-lean ;;
		lean) deps; build lean && build base || exit 1
			boot_lean; bootone base base "distro_mode=compare" ;;
		compare-config) deps; configure base && configure ml || exit 1 ;;
		compare-build) deps; build base && build ml || exit 1 ;;
		boot) boot_series ;;
		deb) deps; deb_build && deb_check || exit 1 ;;
		deb-build) deps; deb_build || exit 1 ;;
		deb-check) deb_check || exit 1 ;;
		containers)
			case ${1:-} in
			[0-9]*) containers "$1" || exit 1; shift ;;
			*) containers || exit 1 ;;
			esac ;;
		owner) deps; owner_boot || exit 1; owner_compare || exit 1 ;;
		owner-boot) deps; owner_boot || exit 1 ;;
		owner-compare) owner_compare || exit 1 ;;
		compare-boot) boot_compare ;;
		results) results ;;
		report) report ;;
		all)
			deps
			build series || exit 1
			build base || exit 1
			build ml || exit 1
			boot_series
			boot_compare
			results && report ;;
		amd64-full|amd64-full-snapshot|amd64-full-config|amd64-full-build|amd64-full-queue)
			# An optional COMMIT follows (any name git resolves).
			local c=
			if [ $# -gt 0 ] && git -C "$top" rev-parse -q --verify "$1^{commit}" >/dev/null; then
				c=$1; shift
			fi
			case $stage in
			amd64-full) deps; af_build "$c" || exit 1; af_warnings; af_boot; af_results ;;
			amd64-full-snapshot) af_snapshot "$c" ;;
			amd64-full-config) deps; af_snapshot "$c"; configure amd64-full || exit 1 ;;
			amd64-full-build) deps; af_build "$c" || exit 1 ;;
			amd64-full-queue) deps; af_queue $c; exit 0 ;;
			esac ;;
		amd64-full-warnings) af_env; af_warnings ;;
		amd64-full-boot) af_boot ;;
		amd64-full-results) af_results ;;
		amd64-full-status) af_status ;;
		queue) queue "$@"; exit 0 ;;
		status) status ;;
		*) die "unknown stage '$stage' (see the head of $0)" ;;
		esac
	done
}

main "$@"; exit $?
