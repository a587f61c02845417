# SPDX-License-Identifier: GPL-2.0
# Per-node counters on a two-node guest (QEMU -numa node, a CPU and half
# the memory each), booted with sysctl.vm.mem_profiling=1,nodes:
# /proc/allocinfo_nodes and its header; slab objects and pages pinned to
# each node (allocprof_nodes.ko) counted on that node exactly, and in
# /proc/allocinfo's totals; a node's frees subtract from that node only;
# a per-CPU allocation split by the CPUs of each node; the sysctl takes
# the boot's ",nodes" back and refuses any other suffix; migration moves
# the charge (the kselftest allocinfo_nodes).
. /data/lib.sh
F=/proc/allocinfo
N=/proc/allocinfo_nodes
M=allocprof_nodes

check "two nodes with memory" [ "$(cat /sys/devices/system/node/has_memory)" = 0-1 ]
check "the boot log says the counters are on" \
	sh -c "dmesg | grep -q 'alloc_tag: per-node counters: 2 nodes'"
check "$N is there, read-only for root" \
	sh -c "ls -l $N | grep -q '^-r-------- '"
check "$N header: version 1.0, then the column line" \
	sh -c "[ \"\$(head -1 $N)\" = 'allocinfo_nodes - version: 1.0' ] &&
		sed -n 2p $N | grep -q '^#     <size>  <calls> <tag info> node:<node>\$'"
check "every line names a node" \
	sh -c "tail -n +3 $N | grep -v ' node:[01]\( accurate:no\)\?\$' | grep -c . | grep -qx 0"
check "the boot's 1,nodes left no sysctl error" \
	sh -c "! dmesg | grep -q 'Failed to set sysctl parameter .vm.mem_profiling'"

# Pinned allocations: node n holds (n + 1) * nr objects and pages.
insmod /data/$M.ko nr=64 || fail "insmod $M"
set -- $(dmesg | sed -n "s/.*$M: kmalloc \([0-9]*\) page \([0-9]*\) nr \([0-9]*\) size \([0-9]*\) page_size \([0-9]*\)$/\1 \2 \3 \4 \5/p" | tail -1)
kl=$1 pl=$2 nr=$3 sz=$(kmalloc_slot "$4") psz=$5
grep " \[$M\] " $N
node_site() { # LINE NODE: "bytes calls" of the line on the node
	grep " [^ ]*$M.c:$1 \[$M\] func:${M}_init node:$2\$" $N | awk '{print $1, $2}'
}
for n in 0 1; do
	c=$(((n + 1) * nr))
	check "node $n: $c slab objects counted there" \
		[ "$(node_site "$kl" $n)" = "$((c * sz)) $c" ]
	check "node $n: $c pages counted there" \
		[ "$(node_site "$pl" $n)" = "$((c * psz)) $c" ]
done
check "allocinfo's slab total is the sum of the nodes" \
	[ "$(grep " [^ ]*$M.c:$kl \[$M\] " $F | awk '{print $1, $2}')" = "$((3 * nr * sz)) $((3 * nr))" ]
check "allocinfo's page total is the sum of the nodes" \
	[ "$(grep " [^ ]*$M.c:$pl \[$M\] " $F | awk '{print $1, $2}')" = "$((3 * nr * psz)) $((3 * nr))" ]
# Read in small pieces, each line whole and once (a site's lines may
# straddle two read() calls, or seq_file's buffer).
dd if=$N bs=100 2>/dev/null >/tmp/pieces
check "a read in 100-byte pieces has only well-formed lines" \
	[ "$(tail -n +3 /tmp/pieces | grep -cvE '^ +[0-9]+ +[0-9]+ [^ ]+:[0-9]+ (\[[^]]+\] )?func:[^ ]+ node:[01]( accurate:no)?$')" = 0 ]
check "a read in 100-byte pieces has the module's four lines" \
	[ "$(grep -c " \[$M\] " /tmp/pieces)" = 4 ]
if [ -x /data/allocinfo-static ]; then
	/data/allocinfo-static top --by-node --module $M --csv >/tmp/by-node.csv
	cat /tmp/by-node.csv
	check "allocinfo top --by-node: a row per site and node" \
		[ "$(grep -c ",$M," /tmp/by-node.csv)" = 4 ]
	check "allocinfo top --by-node: node 1's objects" \
		grep -q "^$((2 * nr * sz)),$((2 * nr)),.*,$kl,yes,1\$" /tmp/by-node.csv
else
	fail "no allocinfo tool in the guest"
fi
echo 0 > /sys/module/$M/parameters/release || fail "release node 0"
check "node 0's frees leave node 0 with nothing" \
	[ -z "$(node_site "$kl" 0)$(node_site "$pl" 0)" ]
check "node 0's frees leave node 1 as it was" \
	[ "$(node_site "$kl" 1) $(node_site "$pl" 1)" = "$((2 * nr * sz)) $((2 * nr)) $((2 * nr * psz)) $((2 * nr))" ]
rmmod $M || fail "rmmod $M"
check "after the unload no line of the module is left" \
	[ "$(grep -c " \[$M\] " $N)" = 0 ]

# A per-CPU allocation: 64 bytes on each node's one CPU, a call on each.
insmod /data/allocprof_pcpu.ko && echo 1 > /sys/module/allocprof_pcpu/parameters/alloc ||
	fail "allocprof_pcpu allocates"
grep " \[allocprof_pcpu\] func:allocprof_pcpu_alloc " $N
for n in 0 1; do
	check "per-CPU: node $n has its CPU's copy" \
		[ "$(grep " \[allocprof_pcpu\] func:allocprof_pcpu_alloc node:$n\$" $N | awk '{print $1, $2}')" = "64 1" ]
done
echo 0 > /sys/module/allocprof_pcpu/parameters/alloc
check "per-CPU: the free leaves nothing" \
	[ "$(grep -c " \[allocprof_pcpu\] func:allocprof_pcpu_alloc " $N)" = 0 ]
rmmod allocprof_pcpu

# The sysctl: options are for the boot only; at run time 0 or 1.
S=/proc/sys/vm/mem_profiling
check "sysctl: 0,nodes is refused and changes nothing" \
	sh -c "! echo 0,nodes > $S 2>/dev/null && [ \$(cat $S) = 1 ]"
check "sysctl: 1,bogus is refused and changes nothing" \
	sh -c "echo 0 > $S && ! echo 1,bogus > $S 2>/dev/null && [ \$(cat $S) = 0 ]"
echo 1 > $S

# Migration, by the kselftest.
out=/tmp/nodes.tap
/data/allocinfo_nodes >$out 2>&1
rc=$?
cat $out
while IFS= read -r l; do
	case $l in
	"ok "*"# SKIP"*) fail "nodes selftest skipped: ${l#ok * }" ;;
	"ok "*) pass "migration: ${l#ok * }" ;;
	"not ok "*) fail "migration: ${l#not ok * }" ;;
	esac
done <$out
check "migration: the selftest exits 0 (status $rc)" [ $rc = 0 ]
dmesg | grep -A24 -e 'WARNING:' -e 'BUG:'
check "no warning in the kernel log" sh -c "! dmesg | grep -q -e 'WARNING:' -e 'BUG:'"
exit $FAILED
