# SPDX-License-Identifier: GPL-2.0
# Guest script of "make distro DISTRO_ARGS=containers" (issue 36 item 4):
# the problem the feature exists for, at guest scale.  A host running
# 10,000 containers lost about 100 GB to kmalloc-32, and it took a kernel
# developer's reading of list_lru to see that every memory cgroup got
# memcg-aware list_lru state for every super block.  Here: memory cgroups
# that each mount a tmpfs and an overlay on it and touch files, as a
# container runtime does; then what allocinfo says grew, and which callers
# capture names for the list_lru site.
#   containers=N   cgroups made in two rounds of N/2 (default 200); a
#                  third round, with capture on, makes N/4 more
. /data/lib.sh
F=/proc/allocinfo
A=/data/allocinfo-static
CG=/sys/fs/cgroup
D=/sys/kernel/debug/allocinfo
N=200
for a in $(cat /proc/cmdline); do
	case $a in
	containers=*) N=${a#containers=} ;;
	esac
done
[ -d /data/lib/modules ] && ln -s /data/lib /lib
modprobe overlay || fail "modprobe overlay"
echo 1 >/proc/sys/vm/mem_profiling
check "profiling on" [ "$(sysctl_val)" = 1 ]
grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG ||
	fail "mount cgroup2"
echo +memory >$CG/cgroup.subtree_control || fail "memory controller"
mount -t debugfs none /sys/kernel/debug 2>/dev/null
mkdir -p /run/c

# container I: a memory cgroup whose first task mounts a tmpfs, an overlay
# with its lower and upper layers on it, and creates files in the overlay;
# the mounts and the cgroup stay, as a running container's do.
container() {
	mkdir $CG/c$1 || return 1
	sh -c '
		echo $$ >'$CG/c$1'/cgroup.procs || exit 1
		r=/run/c/'$1'
		mkdir -p $r && mount -t tmpfs tmpfs $r || exit 1
		mkdir $r/lower $r/upper $r/work $r/merged
		for f in a b c d; do echo $f >$r/lower/$f; done
		mount -t overlay overlay \
			-o lowerdir=$r/lower,upperdir=$r/upper,workdir=$r/work \
			$r/merged || exit 1
		for f in 1 2 3 4 5 6 7 8; do echo $f >$r/merged/new$f; done
		cat $r/merged/a >/dev/null
	'
}

# round FIRST COUNT: containers FIRST .. FIRST+COUNT-1; prints the failures.
round() {
	i=$1 end=$(($1 + $2)) bad=0
	while [ $i -lt $end ]; do
		container $i || bad=$((bad + 1))
		i=$((i + 1))
	done
	echo $bad
}

# calls SITE FUNC FILE / bytes SITE FUNC FILE: a site's figures in a copy.
calls() { grep " $1 func:$2\$" "$3" | awk '{s += $2} END {print s + 0}'; }
bytes() { grep " $1 func:$2\$" "$3" | awk '{s += $1} END {print s + 0}'; }
slabs() {
	grep -E '^(kmalloc-(32|64|96|128)|dentry|shmem_inode_cache) ' /proc/slabinfo |
		awk '{printf "%s %d  ", $1, $2} END {print ""}'
}
H=$((N / 2))
echo "== slab objects before: $(slabs)"
cat $F >/tmp/s0
t0=$(date +%s)
bad=$(round 0 "$H")
cat $F >/tmp/s1
bad=$((bad + $(round "$H" "$H")))
cat $F >/tmp/s2
echo "== $N containers in $(($(date +%s) - t0)) s, $bad failed"
check "$N containers (memory cgroup, tmpfs, overlay) made" [ "$bad" = 0 ]
echo "== slab objects after: $(slabs)"
echo "== allocinfo diff -n 15 (what the $N containers added)"
$A diff -n 15 /tmp/s0 /tmp/s2 | tee /tmp/diff
echo "== allocinfo top -n 5 --file list_lru"
$A top -n 5 --file list_lru $F

# Two sites of per-memory-cgroup state: list_lru's (one allocation per
# cgroup and memcg-aware list it puts an object on: constant per
# container) and the shrinker maps (every cgroup has one sized by the
# number of shrinkers, and every super block registers one: reallocated
# for every cgroup as shrinkers are added, so it grows with cgroups times
# super blocks).
lru=$(grep ' func:memcg_init_list_lru_one$' $F | awk '{print $3}' | head -1)
shr=$(grep ' func:expand_one_shrinker_info$' $F | awk '{print $3}' | head -1)
l1=$(($(calls "$lru" memcg_init_list_lru_one /tmp/s1) - $(calls "$lru" memcg_init_list_lru_one /tmp/s0)))
l2=$(($(calls "$lru" memcg_init_list_lru_one /tmp/s2) - $(calls "$lru" memcg_init_list_lru_one /tmp/s1)))
b0=$(bytes "$shr" expand_one_shrinker_info /tmp/s0)
b1=$(bytes "$shr" expand_one_shrinker_info /tmp/s1)
b2=$(bytes "$shr" expand_one_shrinker_info /tmp/s2)
echo "list_lru $lru: +$l1 allocations for the first $H containers, +$l2 for the next $H"
echo "shrinker maps $shr: $b0 bytes, $b1 after $H containers, $b2 after $N"
check "list_lru state is constant per container (+$l1, +$l2)" \
	[ "$l1" -ge "$H" -a "$l2" -ge $((l1 * 9 / 10)) -a "$l2" -le $((l1 * 11 / 10)) ]
check "shrinker maps grow faster than containers ($b1 -> $b2 bytes, x2.5 at least)" \
	[ -n "$shr" -a $((b2 * 2)) -ge $(((b1 - b0) * 5 + b0 * 2)) -a "$b1" -gt "$b0" ]

# Which callers?  Select both sites, make more containers, read the stacks.
M=$((N / 4))
echo "$shr" >$D/capture && echo "$lru" >$D/capture
check "capture selects $shr and $lru" [ "$(grep -c "^site " $D/capture)" = 2 ]
bad=$(round "$N" "$M")
check "$M more containers made with capture on" [ "$bad" = 0 ]
echo "== allocinfo stacks -n 3"
$A stacks -n 3 $D/stacks | tee /tmp/stacks
check "capture names alloc_super() as a caller of the shrinker maps" \
	grep -q 'alloc_super' /tmp/stacks
check "capture names the callers of list_lru state (alloc_inode or d_alloc)" \
	grep -qE 'alloc_inode|d_alloc' /tmp/stacks
echo clear >$D/capture
check "no oops, BUG or WARNING in the log" \
	[ -z "$(dmesg | grep -E 'Oops|BUG:|WARNING:|Call Trace')" ]
[ "$FAILED" = 0 ]
