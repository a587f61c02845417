# SPDX-License-Identifier: GPL-2.0
# KUnit suites built into the kernel ran during boot: report each case.
. /data/lib.sh
dmesg | sed -n 's/^\[[ 0-9.]*\] *//p' > /tmp/k
n=0
while read -r line; do
	case $line in
	"ok "[0-9]*" alloc_tag_test_"*"# SKIP"*|"ok "[0-9]*" codetag_test_"*"# SKIP"*)
		skip "kunit ${line#ok * }"; n=$((n + 1)) ;;
	"ok "[0-9]*" alloc_tag_test_"*|"ok "[0-9]*" codetag_test_"*)
		pass "kunit ${line#ok * }"; n=$((n + 1)) ;;
	"not ok "[0-9]*" alloc_tag_test_"*|"not ok "[0-9]*" codetag_test_"*)
		fail "kunit ${line#not ok * }"; n=$((n + 1)) ;;
	esac
done < /tmp/k
check "kunit suites ran at boot" [ "$n" -ge 20 ]
exit $FAILED
