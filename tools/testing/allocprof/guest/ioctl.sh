# SPDX-License-Identifier: GPL-2.0
# The kselftest of the /proc/allocinfo ioctl
# (tools/testing/selftests/alloc_tag/allocinfo_ioctl), its TAP results
# turned into PASS/FAIL/SKIP lines; it loads and unloads allocprof_pcpu.ko
# to see the content id change, while allocprof_many.ko (2,000 call sites)
# is loaded, so that the walk has module records.  Then the 2.0 header.
. /data/lib.sh
out=/tmp/ioctl.tap
insmod /data/allocprof_many.ko || fail "insmod allocprof_many"
check "module records in the text" grep -q ' \[allocprof_many\] func:' /proc/allocinfo
/data/allocinfo_ioctl /data/allocprof_pcpu.ko >$out 2>&1
rc=$?
cat $out
while IFS= read -r l; do
	case $l in
	"ok "*"# SKIP"*) skip "ioctl: ${l#ok * }" ;;
	"ok "*) pass "ioctl: ${l#ok * }" ;;
	"not ok "*) fail "ioctl: ${l#not ok * }" ;;
	esac
done <$out
check "ioctl: the selftest exits 0 (status $rc)" [ $rc = 0 ]
rmmod allocprof_many || fail "rmmod allocprof_many"
check "allocinfo header: version 2.0, then the column line" \
	sh -c "[ \"\$(head -1 /proc/allocinfo)\" = 'allocinfo - version: 2.0' ] &&
		sed -n 2p /proc/allocinfo | grep -q '^#     <size>  <calls> <tag info>\$'"
exit $FAILED
