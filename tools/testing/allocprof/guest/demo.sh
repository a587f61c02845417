# SPDX-License-Identifier: GPL-2.0
# make demo: what an operator sees.
echo
echo '# uname -r'; uname -r
if [ ! -e /proc/allocinfo ]; then
	echo "This kernel has no /proc/allocinfo (profiling compiled out)."
	exit 1
fi
echo '# sort -rn /proc/allocinfo | head -20'
sort -rn /proc/allocinfo | head -20
echo
echo "# cat /proc/sys/vm/mem_profiling  ->  $(cat /proc/sys/vm/mem_profiling)"
echo '# sysctl -w vm.mem_profiling=0'
sysctl -w vm.mem_profiling=0
echo "# cat /proc/sys/vm/mem_profiling  ->  $(cat /proc/sys/vm/mem_profiling)"
echo '# sysctl -w vm.mem_profiling=1'
sysctl -w vm.mem_profiling=1
echo "# cat /proc/sys/vm/mem_profiling  ->  $(cat /proc/sys/vm/mem_profiling)"
echo '# grep -c . /proc/allocinfo   (call sites + 2 header lines)'
grep -c . /proc/allocinfo
