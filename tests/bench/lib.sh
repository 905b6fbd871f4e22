# shellcheck shell=bash
# Helpers shared by the benchmark scripts (tests/bench/*.sh).

# median VALUE... : the median (mean of the middle two for an even count); nothing for no values
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# maxof VALUE... : the largest
maxof() { printf '%s\n' "$@" | sort -g | tail -n 1; }

# run_timed PREFIX CMD... : run CMD once under /usr/bin/time -v (its output in $W/out and $W/err,
# the record in $W/time; W is the script's scratch directory) and set PREFIX_s (wall seconds),
# PREFIX_kb (peak RSS, KB) and PREFIX_cpu (user + system seconds). A failed run ends the script.
run_timed() {
	local pfx=$1
	shift
	/usr/bin/time -v -o "$W/time" "$@" >"$W/out" 2>"$W/err" || {
		echo "bench: failed: $*" >&2
		cat "$W/err" >&2
		exit 1
	}
	printf -v "${pfx}_s" '%s' "$(awk -F': ' '/Elapsed \(wall clock\)/ {
		n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$W/time")"
	printf -v "${pfx}_kb" '%s' "$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$W/time")"
	printf -v "${pfx}_cpu" '%s' "$(awk -F': ' '/User time|System time/ { t += $2 } END { print t }' "$W/time")"
}
