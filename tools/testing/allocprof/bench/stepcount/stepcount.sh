#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Instructions of single allocator calls, by function, with gdb
# single-stepping a QEMU guest (x86_64, -icount) that runs the benchmark
# module: where a hook's instructions go, on the path actually taken.
#
#   stepcount.sh KERNEL_O_DIR BENCH_KO OUT [KERNEL_ARGS]
#
# Writes OUT (every instruction, per call) and prints per-function counts,
# then each call's instructions and taken branches (taken.py).
# STEP_FUNCS (default: __kmalloc_noprof,kfree,__get_free_pages_noprof,
# free_pages: the order in which the module calls them) and STEP_SKIP
# (calls from the module to let pass first, default 200) can be set.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
T=$here/../..
k=$1 ko=$2 out=$3 args=${4:-}
export STEP_FUNCS=${STEP_FUNCS:-__kmalloc_noprof,kfree,__get_free_pages_noprof,free_pages}
export STEP_SKIP=${STEP_SKIP:-200} STEP_OUT=$out
port=$((20000 + RANDOM % 10000))
PATH=$here/../icount:$PATH nice -n 5 "$T/qemu-run.sh" -k "$k/arch/x86/boot/bzImage" \
	-s "$here/../guest.sh" -f "$ko" -c 1 -m 512 -t 900 \
	-a "tsc_early_khz=1000000 tsc=reliable bench_iter=2000 $args" \
	-x "-gdb tcp::$port" >"$out.console" 2>&1 &
qemu=$!
sleep 1
timeout 850 gdb -q -batch -ex "set pagination off" -ex "file $k/vmlinux" \
	-ex "target remote :$port" -ex "source $here/stepcount.py" \
	>"$out.gdb" 2>&1 || true
wait $qemu || true
awk '/^== /{ call = $2; print; next }
	{ f = $2; sub(/^</, "", f); sub(/[+>].*/, "", f); n[call " " f]++ }
	END { for (k in n) print "   " k ": " n[k] }' "$out" | sort
python3 "$here/taken.py" "$out"
