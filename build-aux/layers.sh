#!/bin/sh
# The layer rule of docs/design.md ("Which way the arrows run"), checked from the include lines:
# lib/ is util → format → config → boot, and a file may include the headers of its own layer and
# of the layers below it, never of one above. A header's layer is the folder of the .c files that
# implement it: include/NAME.h belongs to lib/LAYER/NAME.c, or to lib/LAYER/NAME_*.c when the API
# is implemented in several files (digest.h: digest_afalg.c, digest_openssl.c); a header next to
# its .c files (lib/boot/tpmwire.h) to that folder. A header with no such home, or with homes in two
# layers, is a finding too: its layer could not be told. lib/ includes no program header.
# Exit status 1 and one line per finding; `make lint` runs it.
# Usage: build-aux/layers.sh
set -eu
cd "$(dirname "$0")/.."

rank() {
	case $1 in
	util) echo 0 ;; format) echo 1 ;; config) echo 2 ;; boot) echo 3 ;; *) echo 9 ;;
	esac
}

# Layer of a header name (NAME.h) as seen from the including file's folder, or "none"/"two".
layer_of() {
	h=$1 dir=$2
	stem=${h%.h}
	if [ "${dir#lib/}" != "$dir" ] && [ -e "$dir/$h" ]; then
		basename "$dir"
		return
	fi
	[ -e "include/$h" ] || { echo none; return; }
	homes=$(ls lib/*/"$stem".c lib/*/"$stem"_*.c 2>/dev/null | sed 's#^lib/\([a-z]*\)/.*#\1#' | sort -u)
	case $(printf '%s\n' "$homes" | grep -c .) in
	0) echo none ;;
	1) echo "$homes" ;;
	*) echo two ;;
	esac
}

status=0
checked=0
for f in lib/*/*.c lib/*/*.h include/*.h; do
	case $f in
	include/*)
		self=$(layer_of "$(basename "$f")" include)
		case $self in none | two)
			echo "layers: $f: no single home in lib/LAYER/ (NAME.c or NAME_*.c): its layer cannot be told"
			status=1
			continue ;;
		esac ;;
	*) self=$(basename "$(dirname "$f")") ;;
	esac
	dir=$(dirname "$f")
	checked=$((checked + 1))
	for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		to=$(layer_of "$h" "$dir")
		case $to in
		none)
			echo "layers: $f includes \"$h\", which is no lib/ module's header"
			status=1 ;;
		two)
			echo "layers: $f includes \"$h\", whose .c files are in two layers" ;;
		*)
			if [ "$(rank "$to")" -gt "$(rank "$self")" ]; then
				echo "layers: $f ($self) includes \"$h\" ($to): an arrow up the layers"
				status=1
			fi ;;
		esac
	done
done
# No header includes itself through others (include guards would hide such a circle from the
# compiler): tsort names the headers of a loop.
loops=$(for f in include/*.h lib/*/*.h verity-init/*/*.h; do
	[ -e "$f" ] || continue
	for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		echo "$(basename "$f") $h"
	done
done | tsort 2>&1 >/dev/null || true)
if [ -n "$loops" ]; then
	echo "layers: headers that include each other in a circle:"
	printf '%s\n' "$loops"
	status=1
fi
if [ "$status" -eq 0 ]; then
	echo "layers: $checked files, every include runs down the layers (util → format → config → boot)"
fi
exit "$status"
