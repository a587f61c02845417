#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-source.sh: the series carried in Debian's own kernel packaging,
# as Documentation/mm/allocation-profiling-maintainers.rst describes it
# (issue 56, item 3).  By hand only: nothing here builds a kernel, but it
# downloads Debian's source package (about 140 MB) and needs root for
# apt.
#
#   debian-source.sh [-v VERSION] [-s SERIES_DIR] [--setup]
#
#   -v VERSION   the version of Debian's "linux" source package to check
#                against (default: the version of the installed
#                linux-source-6.1, the base of the series; when Debian's
#                mirrors no longer serve that version's source, the newest
#                6.1 source they serve, with a NOTE)
#   -s DIR       take the series from DIR (patches and quilt "series"
#                file, as "make series" writes them); default: write it
#                with series.py into build/debian-source/series
#   --setup      also run Debian's setup step for amd64's two flavours
#                (debian/rules.gen setup_amd64_none_amd64 and
#                setup_amd64_none_cloud-amd64: Debian's config files
#                merged, "make listnewconfig" and "make oldconfig", no
#                compiling beyond kconfig) and check the profiling options
#                in the .config it makes
#
# Steps, in build/debian-source (logs in build/debian-source/logs):
#
#  1. deb-src lines for bookworm, bookworm-updates and bookworm-security in
#     an apt state of its own (apt/, so that the host's lists are left
#     alone), "apt-get source --download-only linux=VERSION", and
#     "dpkg-source -x", which applies Debian's own patches (debian/patches,
#     quilt, no fuzz) as a Debian build does;
#  2. the series copied to debian/patches/features/all/allocprof/ and
#     listed at the end of debian/patches/series, then pushed with quilt
#     the way debian/rules pushes the series: --fuzz=0;
#  3. the rt featureset's patches (debian/patches-rt) pushed on a copy of
#     that tree, as debian/rules.real makes source_rt: Debian's rt
#     flavours get the series under them;
#  4. the configuration: the profiling options added to
#     debian/config/amd64/config and debian/config/arm64/config, a
#     changelog entry of our own (VERSION+allocprof1, distribution
#     bookworm) and an ABI name of our own in debian/config/defines
#     ([abi] abiname: N+allocprof1, N being the one Debian's would be);
#     then "debian/rules debian/control-real" regenerates debian/control
#     and debian/rules.gen (it ends with an error on purpose; its message
#     says so) and the package names must carry the new ABI name;
#  5. with --setup, Debian's setup step as above.
#
# Prints PASS:/FAIL:/NOTE: lines and exits non-zero if a step failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
W=${ALLOCPROF_BUILD:-$top/build}/debian-source
L=$W/logs
A=$W/apt
version=
series=
setup=0
failed=0

usage() {
	sed -n 's/^#   \(debian-source.sh.*\)/usage: \1/p' "$0" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	-v) [ $# -ge 2 ] || usage; version=$2; shift 2 ;;
	-s) [ $# -ge 2 ] || usage; series=$(cd "$2" && pwd) || exit 2; shift 2 ;;
	--setup) setup=1; shift ;;
	*) usage ;;
	esac
done

say() { printf '%s\n' "$*"; }
pass() { say "PASS: $*"; }
fail() { say "FAIL: $*"; failed=1; }
die() { say "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (apt-get source with an apt state of its own)"
"$here/../apt.sh" install dpkg-dev quilt python3 kernel-wedge debhelper ||
	die "cannot install dpkg-dev quilt kernel-wedge debhelper"
[ $setup = 0 ] || "$here/../apt.sh" install gcc-12 make flex bison bc ||
	die "cannot install what Debian's setup step needs"
mkdir -p "$W" "$L"

# 1. Debian's source package.
mkdir -p "$A/lists/partial" "$A/archives/partial" "$A/cache" "$A/sources.list.d"
: >"$A/sources.list"
cat >"$A/sources.list.d/debian-src.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_opts=(-o "Dir::State::Lists=$A/lists" -o "Dir::Etc::SourceList=$A/sources.list"
	-o "Dir::Etc::SourceParts=$A/sources.list.d" -o "Dir::Cache=$A/cache"
	-o "Dir::Cache::archives=$A/archives" -o "APT::Architectures=amd64")
apt-get "${apt_opts[@]}" update >"$L/apt-update.log" 2>&1 ||
	die "apt-get update of the deb-src lines failed ($L/apt-update.log)"

base=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null)
want=${version:-$base}
[ -n "$want" ] || die "no -v VERSION and no linux-source-6.1 installed"
# Newest first; only 6.1, the series' upstream.
mapfile -t offered < <(apt-cache "${apt_opts[@]}" showsrc linux 2>/dev/null |
	sed -n 's/^Version: \(6\.1\..*\)/\1/p' | sort -u -r -V)
get() { # get VERSION: the .dsc and its files into $W/src
	rm -rf "$W/src" && mkdir -p "$W/src"
	(cd "$W/src" && apt-get "${apt_opts[@]}" source --download-only \
		"linux=$1") >"$L/apt-source.log" 2>&1
}
got=
if get "$want"; then
	got=$want
elif [ -z "$version" ]; then
	for v in "${offered[@]}"; do
		get "$v" && { got=$v; break; }
	done
fi
[ -n "$got" ] || die "Debian's source of linux $want is not obtainable ($L/apt-source.log)"
if [ "$got" != "$want" ]; then
	if printf '%s\n' "${offered[@]}" | grep -qxF "$want"; then
		say "NOTE: Debian's Sources list linux $want, but the mirror serves no"
		say "NOTE: files for it ($L/apt-source.log)"
	else
		say "NOTE: Debian's Sources do not list linux $want"
	fi
	say "NOTE: checked against linux $got, the newest 6.1 source served;"
	say "NOTE: the series is made for $base: offsets or conflicts below"
	say "NOTE: come from the stable updates between the two"
fi
pass "Debian's source package linux $got downloaded ($(du -sm "$W/src" | cut -f1) MB)"

T=$W/linux-$got
rm -rf "$T" "$T-rt"
if (cd "$W/src" && dpkg-source -x "linux_$got.dsc" "$T") >"$L/dpkg-source.log" 2>&1; then
	pass "dpkg-source -x: Debian's $(grep -c '^[^#]' "$T/debian/patches/series") patches applied"
else
	tail -20 "$L/dpkg-source.log"
	die "dpkg-source -x linux_$got.dsc ($L/dpkg-source.log)"
fi

# 2. The series in debian/patches.
if [ -z "$series" ]; then
	series=$W/series
	python3 "$top/tools/testing/allocprof/series.py" --out "$series" \
		>"$L/series.log" 2>&1 || die "series.py ($L/series.log)"
fi
[ -s "$series/series" ] || die "no quilt series file in $series"
P=features/all/allocprof
mkdir -p "$T/debian/patches/$P"
{
	echo
	echo "# Memory allocation profiling (per-callsite), $(wc -l <"$series/series") patches"
	while IFS= read -r p; do
		cp "$series/$p" "$T/debian/patches/$P/$p" || exit 1
		echo "$P/$p"
	done <"$series/series"
} >>"$T/debian/patches/series" || die "copying the series into debian/patches"
if (cd "$T" && QUILT_PATCHES=debian/patches QUILT_PC=.pc \
	quilt push --quiltrc - -a --fuzz=0) >"$L/quilt-push.log" 2>&1; then
	offs=$(grep -c '^Hunk #[0-9]* succeeded at .*offset' "$L/quilt-push.log")
	pass "quilt push -a --fuzz=0: the $(wc -l <"$series/series") patches apply on Debian's tree ($offs hunks at an offset, none with fuzz)"
	grep -E '^Applying patch|offset' "$L/quilt-push.log" |
		awk '/^Applying/ { p = $3 } /offset/ { n[p]++ }
		     END { for (k in n) printf "  %s: %d hunks at an offset\n", k, n[k] }' | sort
else
	grep -E '^Applying patch|FAILED|rejects|does not apply|can.t find file' \
		"$L/quilt-push.log" | tail -30
	fail "quilt push -a --fuzz=0 stops ($L/quilt-push.log)"
fi

# 3. The rt featureset on top, as debian/rules.real's source_rt.
if [ -s "$T/debian/patches-rt/series" ] && [ $failed = 0 ]; then
	mkdir -p "$T-rt"
	for f in "$T"/* "$T"/.[!.]*; do
		case ${f##*/} in debian|.pc) continue ;; esac
		cp -al "$f" "$T-rt"/ || die "copying the tree for the rt featureset"
	done
	if (cd "$T-rt" && QUILT_PATCHES="$T/debian/patches-rt" QUILT_PC=.pc \
		quilt push --quiltrc - -a -q --fuzz=0) >"$L/quilt-push-rt.log" 2>&1; then
		pass "the rt featureset's $(grep -c '^[^#]' "$T/debian/patches-rt/series") patches apply on top (--fuzz=0)"
	else
		tail -20 "$L/quilt-push-rt.log"
		fail "the rt featureset's patches do not apply on top ($L/quilt-push-rt.log)"
	fi
	rm -rf "$T-rt"
fi

# 4. Configuration, changelog, ABI name, debian/control.
control() { # control LOG: regenerate debian/control and debian/rules.gen
	(cd "$T" && debian/rules debian/control-real) >"$1" 2>&1
	grep -q 'generated SUCCESSFULLY' "$1" && [ -s "$T/debian/rules.gen" ]
}
control "$L/control-debian.log" ||
	die "debian/rules debian/control-real on Debian's own files ($L/control-debian.log)"
abi=$(grep -o -m1 "ABINAME='[^']*'" "$T/debian/rules.gen" | cut -d"'" -f2)
[ -n "$abi" ] || die "no ABINAME in Debian's debian/rules.gen"
n=${abi##*-}
ours="$n+allocprof1"
for arch in amd64 arm64; do
	cat >>"$T/debian/config/$arch/config" <<'EOF'

##
## file: lib/Kconfig.debug
##
CONFIG_MEM_ALLOC_PROFILING=y
# CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT is not set
# CONFIG_MEM_ALLOC_PROFILING_DEBUG is not set
CONFIG_MEM_ALLOC_PROFILING_CAPTURE=y
EOF
done
sed -i "0,/^\[abi\]$/s//[abi]\nabiname: $ours/" "$T/debian/config/defines"
{
	printf 'linux (%s+allocprof1) bookworm; urgency=medium\n\n' "$got"
	printf '  * Add per-callsite memory allocation profiling: %d patches in\n' \
		"$(wc -l <"$series/series")"
	printf '    debian/patches/%s, enabled (off at boot) on\n' "$P"
	printf '    amd64 and arm64.  ABI name %s: the allocator exports\n' "$ours"
	printf '    are renamed.\n\n'
	printf ' -- Allocation Profiling Maintainers <alloc-prof@example.invalid>  %s\n\n' \
		"$(date -R)"
	cat "$T/debian/changelog"
} >"$T/debian/changelog.new" && mv "$T/debian/changelog.new" "$T/debian/changelog"
if control "$L/control.log"; then
	new=$(grep -o "ABINAME='[^']*'" "$T/debian/rules.gen" | cut -d"'" -f2 | sort -u | tr '\n' ' ')
	pkgs=$(grep -c "^Package: linux-image-[0-9.]*-$ours-" "$T/debian/control")
	old=$(grep -c "^Package: linux-image-$abi-" "$T/debian/control")
	if [ "$pkgs" -gt 0 ] && [ "$old" = 0 ]; then
		pass "ABI name $abi -> ${new% }: $pkgs linux-image packages renamed (e.g. $(sed -n "s/^Package: \(linux-image-[0-9.]*-$ours-amd64-unsigned\)$/\1/p" "$T/debian/control" | head -1)), none left with Debian's"
	else
		fail "ABI name: $pkgs packages with $ours, $old still with $abi"
	fi
else
	tail -20 "$L/control.log"
	fail "debian/rules debian/control-real with the changes ($L/control.log)"
fi

# 5. Debian's setup step: its config files merged and kconfig run.
if [ $setup = 1 ] && [ $failed = 0 ]; then
	for fl in amd64 cloud-amd64; do
		b=$T/debian/build/build_amd64_none_$fl
		if (cd "$T" && nice -n 19 make -f debian/rules.gen \
			"setup_amd64_none_$fl") >"$L/setup-$fl.log" 2>&1; then
			bad=
			for o in 'CONFIG_MEM_ALLOC_PROFILING=y' \
				 '# CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT is not set' \
				 '# CONFIG_MEM_ALLOC_PROFILING_DEBUG is not set' \
				 'CONFIG_MEM_ALLOC_PROFILING_CAPTURE=y' \
				 'CONFIG_CODE_TAGGING=y'; do
				grep -qxF "$o" "$b/.config" || bad="$bad '$o'"
			done
			# listnewconfig names every option that Debian's files
			# leave to its default (over a thousand); the series'
			# own must not be among them.
			ours_new=$(grep -E '^CONFIG_(MEM_ALLOC_PROFILING|CODE_?TAG)' \
				"$L/setup-$fl.log" | tr '\n' ' ')
			if [ -n "$bad" ]; then
				fail "Debian's setup of amd64/$fl: missing from .config:$bad"
			elif [ -n "$ours_new" ]; then
				fail "Debian's setup of amd64/$fl: options of the series left to their defaults: $ours_new"
			else
				pass "Debian's setup of amd64/$fl: the profiling options stick in ${b#"$top"/}/.config"
			fi
		else
			tail -20 "$L/setup-$fl.log"
			fail "Debian's setup of amd64/$fl ($L/setup-$fl.log)"
		fi
	done
fi
say "debian-source: the tree is $T; logs in $L"
exit $failed
