#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apt.sh update | install PACKAGE...: the apt steps of every script here.
# "install" installs those of the packages that are missing, and updates
# apt's lists first only then.  A mirror in the middle of a sync serves an
# index that does not match its Release file (seen: bookworm-security's
# i386 list, for more than a day), and apt-get update then fails whatever
# the other lists hold: it is tried again after 20 s, then the install
# goes on with the lists apt has, and fails clearly if a package is still
# unknown.
set -u

update() {
	apt-get update -qq && return 0
	sleep 20
	apt-get update -qq && return 0
	echo "deps: apt-get update failed twice; going on with the lists it has" >&2
}

case ${1:-} in
update)
	update
	;;
install)
	shift
	missing=()
	for p in "$@"; do
		dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && exit 0
	echo "deps: installing ${missing[*]}"
	update
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	;;
*)
	echo "usage: apt.sh update | install PACKAGE..." >&2
	exit 2
	;;
esac
