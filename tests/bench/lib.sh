# shellcheck shell=bash
# Helpers shared by the benchmark scripts (tests/bench/*.sh).

# median VALUE... : the median (mean of the middle two for an even count); nothing for no values
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# maxof VALUE... : the largest
maxof() { printf '%s\n' "$@" | sort -g | tail -n 1; }
