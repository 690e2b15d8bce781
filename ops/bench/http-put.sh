#!/usr/bin/env bash
# HTTP upload benchmark: Attache's libcurl transport against the curl CLI, both PUTting to the same local nginx.
#
#   ops/bench/http-put.sh [rounds]     (default 9 rounds; needs nginx, curl, python3, /usr/bin/time, swift)
#
# 1. memory: one 256 MiB upload; peak RSS of the uploading process (target < 40 MiB)
# 2. throughput: 8 × 64 MiB at concurrency 8, Attache vs `curl --parallel --parallel-max 8 -T` (target >= 90 %)
#
# The bench executable (ops/bench/http-put/main.swift) is built in a scratch package under ops/bench/work that
# links the HTTPTransport sources, so the product package needs no bench target.
set -euo pipefail

rounds="${1:-9}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$repo/ops/bench/work/http-put"
mkdir -p "$work"

# --- build the bench executable -------------------------------------------------------------------------------
pkg="$work/package"
mkdir -p "$pkg/Sources/http-put-bench"
ln -sfn "$repo/Sources/CCurl" "$pkg/Sources/CCurl"
ln -sfn "$repo/Sources/CCrypto" "$pkg/Sources/CCrypto"
ln -sfn "$repo/Sources/UploadEngine" "$pkg/Sources/UploadEngine"
ln -sfn "$repo/Sources/HTTPTransport" "$pkg/Sources/HTTPTransport"
ln -sfn "$repo/ops/bench/http-put/main.swift" "$pkg/Sources/http-put-bench/main.swift"
cat > "$pkg/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "HTTPPutBench",
    targets: [
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl"),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto"),
        .target(name: "UploadEngine"),
        .target(name: "HTTPTransport", dependencies: ["UploadEngine", "CCurl", "CCrypto"]),
        .executableTarget(name: "http-put-bench", dependencies: ["HTTPTransport", "UploadEngine"]),
    ],
    swiftLanguageModes: [.v6]
)
SWIFT
echo "building http-put-bench (release)…" >&2
swift build -c release --package-path "$pkg" --product http-put-bench >&2
bench="$(swift build -c release --package-path "$pkg" --show-bin-path)/http-put-bench"

# --- test files -----------------------------------------------------------------------------------------------
files="$work/files"
mkdir -p "$files"
make_file() { # name MiB
    [[ -f "$files/$1" && $(stat -c %s "$files/$1") -eq $(($2 << 20)) ]] || head -c $(($2 << 20)) /dev/urandom > "$files/$1"
}
make_file big-256.bin 256
parallel_files=()
for i in 1 2 3 4 5 6 7 8; do
    make_file "part-$i.bin" 64
    parallel_files+=("$files/part-$i.bin")
done

# --- nginx ----------------------------------------------------------------------------------------------------
# nginx keeps what it receives in tmpfs when there is one, so disk write-back does not decide the race.
if [[ -d /dev/shm && -w /dev/shm ]]; then srv="/dev/shm/attache-http-put-$$"; else srv="$work/nginx"; fi
rm -rf "$srv"
mkdir -p "$srv/www/dav" "$srv/tmp"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
user_line=""
[[ $(id -u) -eq 0 ]] && user_line="user root;"
cat > "$srv/nginx.conf" <<CONF
$user_line
worker_processes 2;
pid $srv/nginx.pid;
error_log $srv/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $srv/tmp;
    server {
        listen 127.0.0.1:$port;
        root $srv/www;
        location /dav/ {
            dav_methods PUT DELETE;
            create_full_put_path on;
            client_max_body_size 0;
            client_body_buffer_size 1m;
        }
    }
}
CONF
/usr/sbin/nginx -p "$srv" -c "$srv/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
trap 'kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; rm -rf "$srv"' EXIT
for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.05
done
base="http://127.0.0.1:$port/dav"

now() { date +%s.%N; }
clear_store() { rm -rf "$srv/www/dav/"*; }

# --- 1. memory: one 256 MiB upload ----------------------------------------------------------------------------
clear_store
/usr/bin/time -v "$bench" --base "$base/mem" --concurrency 1 "$files/big-256.bin" > "$work/mem.json" 2> "$work/mem.time"
rss_kib="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/mem.time")"
cmp -s "$files/big-256.bin" "$srv/www/dav/mem/big-256.bin" || { echo "256 MiB upload stored different bytes" >&2; exit 1; }
echo "memory: 256 MiB upload $(cat "$work/mem.json"); peak RSS (time -v) ${rss_kib} KiB = $((rss_kib / 1024)) MiB (target < 40 MiB)"

# --- 2. throughput: 8 × 64 MiB at concurrency 8, alternating runs ----------------------------------------------
total_mib=$((8 * 64))
curl_rates=()
attache_rates=()
run_curl() {
    clear_store
    local curl_args=() start end
    for f in "${parallel_files[@]}"; do curl_args+=(-T "$f" "$base/curl/$(basename "$f")"); done
    start=$(now)
    curl -sS --no-progress-meter --fail --parallel --parallel-max 8 -o /dev/null "${curl_args[@]}"
    end=$(now)
    curl_rates+=("$(python3 -c "print(f'{$total_mib/($end-$start):.1f}')")")
}
run_attache() {
    clear_store
    result="$("$bench" --base "$base/attache" --concurrency 8 "${parallel_files[@]}")"
    attache_rates+=("$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['mibPerSecond'])" "$result")")
    for f in "${parallel_files[@]}"; do
        cmp -s "$f" "$srv/www/dav/attache/$(basename "$f")" || { echo "stored bytes differ for $f" >&2; exit 1; }
    done
}
for round in $(seq 1 "$rounds"); do
    # Alternate who goes first, so warm-up and neighbours' load fall on both sides.
    if (( round % 2 )); then run_curl; run_attache; else run_attache; run_curl; fi
    peak="$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['peakRSSKiB'] // 1024)" "$result")"
    echo "round $round: curl ${curl_rates[-1]} MiB/s, attache ${attache_rates[-1]} MiB/s (attache peak RSS ${peak} MiB)"
done

python3 - "${curl_rates[*]}" "${attache_rates[*]}" <<'PY'
import statistics, sys
curl = [float(x) for x in sys.argv[1].split()]
attache = [float(x) for x in sys.argv[2].split()]
c, a = statistics.median(curl), statistics.median(attache)
print(f"throughput: 8 x 64 MiB, concurrency 8 — median curl {c:.1f} MiB/s, attache {a:.1f} MiB/s, "
      f"ratio {a / c * 100:.0f} % (target >= 90 %)")
PY
