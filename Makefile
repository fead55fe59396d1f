# LWP for perf: build, boot and test harness.  See README.md.

# ---- pinned bases (Debian's archive) ---------------------------------------
# Kernel: Debian's linux-source-6.12 binary package (the vanilla orig of this
# version is not served; see README.md "Bases").
LINUX_PKG          := linux-source-6.12
LINUX_DEB_VERSION  := 6.12.118-1~deb12u1
LINUX_DEB_SHA256   := 896aff3b39299fa0dd36fef4f5db56ab189182e39abbbb1227dafdc7fcfe3fc3
# QEMU: Debian's qemu source package, unpacked with Debian's patches.
QEMU_SRC_VERSION   := 1:7.2+dfsg-7+deb12u18
QEMU_DSC_SHA256    := 6b6bd27b947ec89e40a1d6b26d9c9f3c698ca691da13163e0483f6061bbb20b3
QEMU_ORIG_SHA256   := 91aca71520040edc40b8d437aa3004dae614f58e286cf653ee8996c07af2962f
QEMU_DEBIAN_SHA256 := 28a1c86310ee53b6bf1854cffe6f6be6ed29a08db7d05759f8ac57b8d6a6cb2f

export LINUX_PKG LINUX_DEB_VERSION LINUX_DEB_SHA256
export QEMU_SRC_VERSION QEMU_DSC_SHA256 QEMU_ORIG_SHA256 QEMU_DEBIAN_SHA256

.PHONY: fetch
fetch:
	scripts/fetch-linux.sh
	scripts/fetch-qemu.sh

# ---- CPU models ---------------------------------------------------------------
# The LWP CPU: an AMD Family 15h model (Opteron_G5, Piledriver).  QEMU 7.2 hangs
# Linux on it without +xsaveopt; patches/qemu fixes that (see README.md).
CPU_LWP   ?= Opteron_G5,+lwp
# A CPU without LWP, on which every LWP test must skip cleanly.  EPYC
# (Family 17h, with XSAVE) minus SMAP: QEMU 7.2 TCG does the stack accesses
# of far RET/CALL/IRET with supervisor rights, which under SMAP makes the
# x86 kselftest sysret_ss_attrs_64 oops the (unpatched, too) guest kernel.
CPU_NOLWP ?= EPYC,-smap
export CPU_LWP CPU_NOLWP

DEBUG ?= 0
export DEBUG
# make check FAST=1: leave out the debug kernel (local iteration; CI runs all)
FAST ?= 0
export FAST
# the kernel variant; scripts/lib.sh's kernel_out maps it to its build folder
KVARIANT := $(if $(filter 1,$(DEBUG)),debug,plain)

.DEFAULT_GOAL := help
.PHONY: help deps tree export qemu-tree qemu-export kernel qemu perf initramfs \
	demo shell check check-series check-perf bench fuzz lint clean distclean

help:
	@echo "make demo         build everything, boot, show perf profiling a workload"
	@echo "make check        lint, checkpatch, build, boot on LWP and non-LWP CPUs, run all suites,"
	@echo "                  then the LWP suites on the debug kernel (KASAN, lockdep, kmemleak, UBSAN)"
	@echo "make shell        boot the kernel to an interactive guest shell"
	@echo "make tree         kernel work tree build/linux = base + patches/linux (git am)"
	@echo "make export       write build/linux's commits back to patches/linux"
	@echo "make qemu-tree    QEMU work tree build/qemu = base + patches/qemu"
	@echo "make qemu-export  write build/qemu's commits back to patches/qemu"
	@echo "make kernel | qemu | perf | initramfs   build one piece (perf: tools/perf of the tree)"
	@echo "make check-series every kernel patch builds; !CPU_SUP_AMD, !PERF_EVENTS build (slow)"
	@echo "make check-perf   the whole perf test on the series' kernel and on the base, compared (slow)"
	@echo "make bench        instruction counts of the context-switch path (TCG plugin), the emulator"
	@echo "                  against stock QEMU in host instructions (valgrind)"
	@echo "make fuzz         trinity against the lwp PMU on the debug kernel, unprivileged (slow)"
	@echo "make deps         install the Debian packages the harness needs"
	@echo "Options: FAST=1 (check without the debug kernel), DEBUG=1 (demo/shell/bench on the debug kernel),"
	@echo "         CPU_LWP=..., CPU_NOLWP=..., FORCE=1 (tree/export),"
	@echo "         FUZZ_SEEDS='1 2 3' FUZZ_SECONDS=300 (fuzz: trinity's seeds, seconds per seed)"

deps:
	scripts/deps.sh

# The work trees.  Made on first use; 'make tree' refreshes them from patches/.
build/linux/.git:
	@scripts/deps.sh
	scripts/fetch-linux.sh
	scripts/series.sh tree linux
build/qemu/.git:
	@scripts/deps.sh
	scripts/fetch-qemu.sh
	scripts/series.sh tree qemu

tree:
	@scripts/deps.sh
	scripts/series.sh tree linux
export:
	scripts/series.sh export linux
qemu-tree:
	@scripts/deps.sh
	scripts/series.sh tree qemu
qemu-export:
	scripts/series.sh export qemu
lint:
	scripts/series.sh lint linux
	scripts/series.sh lint qemu

kernel: build/linux/.git
	@scripts/deps.sh
	scripts/build-kernel.sh $(KVARIANT)
qemu: build/qemu/.git
	@scripts/deps.sh
	scripts/build-qemu.sh
# the perf tool of the kernel tree, for the guest beside Debian's
perf: build/linux/.git
	@scripts/deps.sh
	scripts/build-perf.sh
initramfs: kernel perf
	scripts/build-initramfs.sh $(KVARIANT)

demo: qemu initramfs
	scripts/boot.sh $(KVARIANT) $(CPU_LWP) --mode demo --log build/demo-serial.log --timeout 600

shell: qemu initramfs
	scripts/boot.sh $(KVARIANT) $(CPU_LWP) --mode shell --log build/shell-serial.log

check:
	scripts/check.sh

# slow pre-posting checks: every patch builds; !CPU_SUP_AMD and !PERF_EVENTS build
check-series: build/linux/.git
	@scripts/deps.sh
	scripts/check-series.sh

# the whole perf test of the tree's perf, series' kernel against the base
check-perf: qemu initramfs
	scripts/check-perf.sh

# deterministic instruction counts (TCG plugin) of the context-switch path
bench: qemu initramfs
	scripts/bench.sh $(KVARIANT) $(CPU_LWP)

# trinity on the debug kernel, one boot per seed (guest/fuzz.sh)
FUZZ_SEEDS ?= 1 2 3
FUZZ_SECONDS ?= 300
export FUZZ_SECONDS
fuzz: qemu
	$(MAKE) initramfs DEBUG=1
	scripts/fuzz.sh $(FUZZ_SEEDS)

clean:
	rm -rf build/kernel build/kernel-debug build/kernel-bisect build/kernel-base build/kernel-noamd \
		build/kernel-noperf build/qemu-build build/stock build/kselftests build/bench build/fuzz build/perf build/perf-install \
		build/initramfs.root build/initramfs.cpio.gz build/check build/check-perf

# also drops the work trees; refuses while they hold unexported work
distclean:
	scripts/series.sh safe linux
	scripts/series.sh safe qemu
	rm -rf build
