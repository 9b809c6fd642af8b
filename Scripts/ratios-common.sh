# Sourced by the bench-*-ratios.sh scripts: commands run in turn with the plain scan, on a machine
# whose speed moves from run to run, so that each ratio compares runs made in the same minutes.
#
#   commands=("SCAN" "CMD1" "CMD2" ...)   # shell text, evaluated; commands[0] is the scan
#   in_turn ROUNDS                        # then mins[i], medians[i] in ms (perf stat's task-clock)

# The plain scan every ratio is against, as shell text for `commands`: each event row read once.
scan_command() { echo "sqlite3 $1 'SELECT count(*), sum(length(payload)) FROM events'"; }

# The header of the table ratio_rows writes under.
ratio_header() {
    echo "| events | trace | command | min ms | scan min ms | min ratio | median ms | scan median ms | median ratio |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
}

# CPU time of one run of "$@" in ms; its standard output is discarded.
ms() { perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {printf "%.0f", $1}' || true; }

# "MIN MEDIAN" of the numbers on standard input.
min_median() { sort -n | awk '{v[NR]=$1} END {printf "%d %d", v[1], v[int((NR+1)/2)]}'; }

# Runs every command of `commands` once per round, in order, ROUNDS rounds; sets `mins` and `medians`.
in_turn() {
    local rounds=$1 i
    local -a runs=()
    for _ in $(seq "$rounds"); do
        for i in "${!commands[@]}"; do runs[$i]+="$(eval "ms ${commands[$i]}") "; done
    done
    mins=() medians=()
    for i in "${!commands[@]}"; do
        read -r "mins[$i]" "medians[$i]" <<< "$(tr ' ' '\n' <<< "${runs[$i]}" | grep . | min_median)"
    done
}

# After in_turn: a table row per command but the scan, "| PREFIX | `label` | min | scan min | ratio |
# median | scan median | ratio |", labels from `labels`; PREFIX is the leading cells ("N | kind").
ratio_rows() {
    local prefix=$1 i
    for i in "${!commands[@]}"; do
        [ "$i" -eq 0 ] && continue
        printf '| %s | `%s` | %d | %d | %.2f× | %d | %d | %.2f× |\n' "$prefix" "${labels[$i]}" "${mins[$i]}" "${mins[0]}" \
            "$(echo "${mins[$i]} / ${mins[0]}" | bc -l)" "${medians[$i]}" "${medians[0]}" "$(echo "${medians[$i]} / ${medians[0]}" | bc -l)"
    done
}
