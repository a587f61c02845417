# SPDX-License-Identifier: GPL-2.0
# The output that the user's guide shows for "allocinfo top --rate" and
# "allocinfo leaks", on allocprof_leaky.  By hand, after make check:
#   tools/testing/allocprof/qemu-run.sh -k build/kernel/arch/x86/boot/bzImage \
#     -s tools/testing/allocprof/guest/howto.sh \
#     -f tools/testing/allocprof/guest/lib.sh \
#     -f build/testmod-kernel/allocprof_leaky.ko \
#     -f build/allocinfo/allocinfo-static \
#     -a sysctl.vm.mem_profiling=1,cumulative -t 600
. /data/lib.sh
insmod /data/allocprof_leaky.ko run=1
sleep 2
echo '# allocinfo top --rate -i 10 -n 5'
/data/allocinfo-static top --rate -i 10 -n 5
echo '# allocinfo leaks -i 2 --samples 30 -n 5'
/data/allocinfo-static leaks -i 2 --samples 30 -n 5
exit 0
