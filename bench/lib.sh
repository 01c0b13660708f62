# Shared by bench/suite.sh and bench/defaults.sh (source it; bash).

# bench_install PKG...: installs the Debian packages among PKG that are not installed yet,
# with one `apt-get update` first. Returns non-zero if apt-get failed.
bench_install() {
	local need=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
	done
	((${#need[@]})) || return 0
	echo "installing ${need[*]} from Debian" >&2
	apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
}

# bench_time TIMEFILE LOG CMD...: runs CMD under GNU time, stdout and stderr to LOG, and writes
# "wall_s user_s sys_s peak_kB" to TIMEFILE (user and sys include the children CMD waited
# for; peak RSS is that of the largest single process). Returns CMD's exit status.
bench_time() {
	local tf=$1 log=$2
	shift 2
	/usr/bin/time -f "%e %U %S %M" -o "$tf" "$@" >"$log" 2>&1
}

# bench_py: Debian's own python3 (python3-sklearn is installed for it), not the first on PATH.
bench_py() { /usr/bin/python3 "$@"; }
