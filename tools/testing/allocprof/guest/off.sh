# SPDX-License-Identifier: GPL-2.0
# Profiling compiled out, on SLAB with MEMCG_KMEM: no file, no sysctl, the
# kernel boots, and slabs holding memcg-charged objects (so with an object
# extension vector) are freed cleanly.
. /data/lib.sh
check "compiled out: no /proc/allocinfo" [ ! -e /proc/allocinfo ]
check "compiled out: no vm.mem_profiling" [ ! -e /proc/sys/vm/mem_profiling ]
check "compiled out: kernel boots to a shell" [ -d /proc/self ]

slab_kb() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }
mkdir -p /sys/fs/cgroup
mount -t cgroup2 none /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/t
echo $$ > /sys/fs/cgroup/t/cgroup.procs
check "SLAB: shell runs in a child memory cgroup" \
	grep -qx '0::/t' /proc/self/cgroup
# Dentries and inodes are charged to the cgroup: their slabs get vectors.
before=$(slab_kb)
mkdir /tmp/many
i=0
while [ $i -lt 4000 ]; do
	: > /tmp/many/f$i
	i=$((i + 1))
done
grown=$(slab_kb)
charged=$(awk '$1 == "slab" { print $2 }' /sys/fs/cgroup/t/memory.stat)
check "SLAB: the cgroup is charged slab memory ($charged bytes)" \
	[ "${charged:-0}" -gt 500000 ]
rm -rf /tmp/many
sleep 3
after=$(slab_kb)
left=$(awk '$1 == "slab" { print $2 }' /sys/fs/cgroup/t/memory.stat)
echo "Slab: ${before} kB before, ${grown} kB with the files, ${after} kB after"
check "SLAB: slabs with vectors are freed (${grown} kB -> ${after} kB)" \
	[ $((grown - after)) -gt $(((grown - before) / 2)) ]
check "SLAB: the cgroup's slab charge falls back ($charged -> $left bytes)" \
	[ "${left:-0}" -lt $((charged / 2)) ]
exit $FAILED
