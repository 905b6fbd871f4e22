#!/bin/sh
# The layer rule of docs/design.md ("Which way the arrows run"), checked from the include lines:
# lib/ is util → format → config → boot, and a file may include the headers of its own layer and
# of the layers below it, never of one above. A header's layer is the folder of the .c files that
# implement it: include/NAME.h belongs to lib/LAYER/NAME.c, or to lib/LAYER/NAME_*.c when the API
# is implemented in several files (digest.h: digest_afalg.c, digest_openssl.c); a header next to
# its .c files (lib/LAYER/NAME.h) to that folder. A header with no such home, or with homes in two
# layers, is a finding too: its layer could not be told. lib/ includes no program header. No header
# of lib/ or of a program includes itself through others.
# Exit status 1 and one line per finding; `make lint` runs it.
# Usage: build-aux/layers.sh
set -eu
cd "$(dirname "$0")/.."

rank() {
	case $1 in
	util) echo 0 ;; format) echo 1 ;; config) echo 2 ;; boot) echo 3 ;; *) echo 9 ;;
	esac
}

# The quoted includes of a file, one a line.
includes() {
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
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
	homes=$(for c in lib/*/"$stem".c lib/*/"$stem"_*.c; do
		if [ -e "$c" ]; then echo "$c"; fi
	done | sed 's#^lib/\([a-z]*\)/.*#\1#' | sort -u)
	case $(printf '%s\n' "$homes" | grep -c .) in
	0) echo none ;;
	1) echo "$homes" ;;
	*) echo two ;;
	esac
}

status=0
checked=0
for f in lib/*/*.c lib/*/*.h include/*.h; do
	[ -e "$f" ] || continue
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
	for h in $(includes "$f"); do
		to=$(layer_of "$h" "$dir")
		case $to in
		none)
			echo "layers: $f includes \"$h\", which is no lib/ module's header"
			status=1 ;;
		two)
			echo "layers: $f includes \"$h\", whose .c files are in two layers"
			status=1 ;;
		*)
			if [ "$(rank "$to")" -gt "$(rank "$self")" ]; then
				echo "layers: $f ($self) includes \"$h\" ($to): an arrow up the layers"
				status=1
			fi ;;
		esac
	done
done

# Include guards would hide a circle of headers from the compiler: tsort names the headers of one.
loops=$(for f in include/*.h lib/*/*.h verity-init/*/*.h; do
	[ -e "$f" ] || continue
	includes "$f" | sed "s#^#$(basename "$f") #"
done | tsort 2>&1 >/dev/null || true)
if [ -n "$loops" ]; then
	echo "layers: headers that include each other in a circle:"
	printf '%s\n' "$loops"
	status=1
fi

if [ "$status" -eq 0 ]; then
	echo "layers: $checked files, every include runs down the layers (util → format → config → boot), no circle"
fi
exit "$status"
