# SPDX-License-Identifier: GPL-2.0
#
# Memory allocation profiling for Linux 6.1 LTS: build, boot and test.
# See README.md.  Everything is built under build/ (ignored by git).

T := tools/testing/allocprof
PKGS := linux-source-6.1 build-essential flex bison bc kmod cpio libelf-dev \
	libssl-dev dwarves python3 rsync xz-utils qemu-system-x86 \
	busybox-static ccache quilt git clang libclang-rt-14-dev python3-sphinx \
	python3-sphinx-rtd-theme \
	prometheus prometheus-node-exporter \
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf qemu-system-arm \
	linux-config-6.1 stress-ng trinity
# arm64 and i386 guests: busybox-static:arm64 and :i386 unpacked here,
# never installed (either would replace the amd64 /bin/busybox that the
# x86_64 guests use).
BUSYBOX_ARM64 := build/busybox-arm64
BUSYBOX_I386 := build/busybox-i386

.PHONY: all deps tree refresh kernel kernel-arm64 demo check clean help series \
	bisect-check build32

all: help

help:
	@echo "make demo                build and boot a profiling kernel, show /proc/allocinfo"
	@echo "make check               every test: KUnit, QEMU boots, builds, series checks"
	@echo "make deps                install what any target uses (apt; arm64/i386 busybox)"
	@echo "make tree                the patched 6.1 tree in build/linux"
	@echo "make refresh             edits made in build/linux back into repository files"
	@echo "make kernel              x86_64 guest kernel, profiling on, in build/kernel"
	@echo "make kernel-arm64        make check's arm64 kernel (KUnit built in), build/arm64"
	@echo "make series              numbered patches and a quilt series in build/series"
	@echo "make bisect-check        by hand: build the kernel after each patch (25-47 min)"
	@echo "make build32             by hand: i386 profiling off, 32-bit arm on and off"
	@echo "make capture-irqsoff     by hand: longest irqs-off section under capture"
	@echo "make capture-nokallsyms  by hand: call-stack capture without CONFIG_KALLSYMS"
	@echo "make fuzz                by hand: stress-ng and trinity for hours"
	@echo "make bench               by hand: overhead benchmarks (BENCHMARKS.md)"
	@echo "make distro              by hand: Debian's cloud config, every module, booted"
	@echo "make clean               remove build/"
	@echo "make help                this list (also: make, make all)"

deps:
	@$(T)/apt.sh install $(PKGS)
	@$(T)/busybox-foreign.sh arm64 $(BUSYBOX_ARM64)
	@$(T)/busybox-foreign.sh i386 $(BUSYBOX_I386)

tree: deps
	@python3 $(T)/tree.py tree

refresh:
	@python3 $(T)/tree.py refresh

kernel: tree
	@$(T)/build-kernel.sh kernel guest prof-on numa
	@echo "kernel: build/kernel/arch/x86/boot/bzImage; external modules: make -C build/kernel M=<dir> modules"

# The arm64 kernel of make check (profiling on, the KUnit suites built in).
kernel-arm64: tree
	@ARCH=arm64 $(T)/build-kernel.sh arm64 guest arm64 prof-on kunit
	@echo "kernel-arm64: build/arm64/arch/arm64/boot/Image; external modules:" \
		"make -C build/arm64 ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- M=<dir> modules;" \
		"boot: $(T)/qemu-run.sh -r arm64 -k build/arm64/arch/arm64/boot/Image -s <script>"

demo: kernel
	@$(T)/qemu-run.sh -k build/kernel/arch/x86/boot/bzImage -s $(T)/guest/demo.sh -t 300

check: tree
	@$(T)/check.sh

# The repository as a numbered patch series in build/series (split: series/).
# It installs only what series.py runs: python3, git (the files git
# tracks, the last commit's date), patch and diff, and the base tree
# (linux-source-6.1, unpacked with tar and xz) unless build/pristine has it.
BASE_PKGS = $(if $(wildcard $(or $(ALLOCPROF_BUILD),build)/pristine/.unpacked),,linux-source-6.1 xz-utils)
SERIES_PKGS := python3 git patch diffutils
series:
	@$(T)/apt.sh install $(SERIES_PKGS) $(BASE_PKGS)
	@python3 $(T)/series.py

# Build the profiling kernel after every patch of the series, in
# build/bisect; BISECT_ARGS="-n 2" stops after the second patch.
# bisect-check.sh installs what it uses (the kernel's build dependencies).
bisect-check:
	@$(T)/bisect-check.sh $(BISECT_ARGS)

# 32-bit kernels, by hand: i386 with profiling compiled out (make check
# builds and boots it compiled in), and 32-bit arm (armhf, ARMv7, LPAE)
# compiled in and out, in build/i386-off, build/arm-on, build/arm-off.
build32: tree
	@ARCH=i386 $(T)/build-kernel.sh i386-off guest i386 prof-off
	@ARCH=arm $(T)/build-kernel.sh arm-on guest arm prof-on
	@ARCH=arm $(T)/build-kernel.sh arm-off guest arm prof-off
	@echo "build32: i386 off, arm on and off built"

# The test modules in build/testmod-$(1), built against the kernel in
# build/$(2) (the targets below boot them by hand; check.sh has its own).
testmods = rm -rf build/testmod-$(1) && mkdir -p build/testmod-$(1) && \
	cp $(T)/modules/* build/testmod-$(1)/ && \
	python3 $(T)/modules/gen-many.py 2000 >build/testmod-$(1)/allocprof_many.c && \
	$(MAKE) -s -C build/$(2) M=$(CURDIR)/build/testmod-$(1) modules

# By hand: the longest section with interrupts off while call-stack
# capture runs at its largest cap (irqsoff tracer; guest/capture-irqsoff.sh),
# on build/irqsoff; its RESULT and TRACE lines go to build/capture-irqsoff.log.
# Under -icount shift=0 (bench/icount/ first in PATH): the guest clock
# advances 1 ns per instruction, so a section's length counts its
# instructions and does not depend on the host's load.  One vCPU: with
# two, QEMU 7.2 under -icount hangs after SeaBIOS here.
.PHONY: capture-irqsoff
capture-irqsoff: tree
	@$(T)/build-kernel.sh irqsoff guest prof-on numa irqsoff
	@$(call testmods,irqsoff,irqsoff)
	@PATH=$(CURDIR)/$(T)/bench/icount:$$PATH \
		$(T)/qemu-run.sh -k build/irqsoff/arch/x86/boot/bzImage \
		-s $(T)/guest/capture-irqsoff.sh -f $(T)/guest/lib.sh \
		-a "tsc_early_khz=1000000 tsc=reliable" \
		-f build/testmod-irqsoff/allocprof_stress.ko -c 1 -m 2048 -t 1800 \
		-l build/capture-irqsoff.log >/dev/null; \
		grep -a '^RESULT\|^TRACE\|^PASS\|^FAIL' build/capture-irqsoff.log

# By hand: call-stack capture on a kernel without CONFIG_KALLSYMS
# (guest/capture-nokallsyms.sh), on build/nokallsyms: frames are bare
# addresses and allocinfo stacks merges only equal stacks.  Log:
# build/capture-nokallsyms.log.
.PHONY: capture-nokallsyms
capture-nokallsyms: tree
	@$(T)/build-kernel.sh nokallsyms guest prof-on numa nokallsyms
	@$(call testmods,nokallsyms,nokallsyms)
	@gcc -static -O2 -o build/testmod-nokallsyms/allocinfo-static tools/vm/allocinfo*.c
	@$(T)/qemu-run.sh -k build/nokallsyms/arch/x86/boot/bzImage \
		-s $(T)/guest/capture-nokallsyms.sh -f $(T)/guest/lib.sh \
		-f build/testmod-nokallsyms/allocprof_holder.ko \
		-f build/testmod-nokallsyms/allocprof_capture.ko \
		-f build/testmod-nokallsyms/allocinfo-static -t 400 \
		-l build/capture-nokallsyms.log >/dev/null; \
		grep -a '^PASS\|^FAIL\|^SKIP' build/capture-nokallsyms.log; \
		grep -aq '^PASS' build/capture-nokallsyms.log && \
		! grep -aq '^FAIL' build/capture-nokallsyms.log

# The long run of guest/tools.sh (by hand, not part of check): stress-ng
# 10 s a stressor, trinity 200,000 calls as nobody and 50,000 or an hour
# as root, on build/kernel; FUZZ_SEED picks trinity's seed.  Log:
# build/fuzz.log; the PASS/FAIL lines and the seed are what to record.
FUZZ_SEED ?= 20261204
.PHONY: fuzz
fuzz: kernel
	@$(call testmods,fuzz,kernel)
	@$(T)/userland.sh build/userland
	@$(T)/qemu-run.sh -k build/kernel/arch/x86/boot/bzImage \
		-s $(T)/guest/tools.sh -f $(T)/guest/lib.sh \
		-a "STRESS_SECONDS=10 TRINITY_SEED=$(FUZZ_SEED) TRINITY_CALLS=200000 TRINITY_ROOT_CALLS=50000 TRINITY_ROOT_SECONDS=3600" \
		-f build/testmod-fuzz/allocprof_test.ko \
		-f build/testmod-fuzz/allocprof_holder.ko -f build/userland \
		-c 2 -m 1024 -t 10800 -l build/fuzz.log >/dev/null; \
		grep -a '^PASS\|^FAIL\|^SKIP\|^trinity:\|^stress-ng:' build/fuzz.log

# Instruction-count, timing and memory benchmark (by hand, not part of
# check); builds under build/bench*/.  Default: the icount venue, with
# mainline, the module's three kmalloc call patterns.  The reduced run of
# the current figures (about 15 minutes once the kernels are built):
# BENCH_ARGS='--rounds 1 --only "1 ,2 ,2b,3 ,3a,4 ,M"'.  Other venues:
# --venues icount,qemu,um.
.PHONY: bench
bench: deps
	@python3 $(T)/bench/run.py $(BENCH_ARGS)

# The series on Debian's cloud kernel configuration: every module built,
# booted under QEMU (2 vCPUs, 4 GiB) with a realistic module set, memory
# figures against the base and mainline 6.12.  By hand only (hours on two
# cores; resumable: run it again).  DISTRO_ARGS="build" (or config, boot,
# compare-build, compare-boot, results, report, queue, status) runs stages.
.PHONY: distro
distro: tree
	@$(T)/distro/distro.sh $(DISTRO_ARGS)

clean:
	rm -rf build
