#!/usr/bin/env bash
# The floor under a live room's action: a bare Channels fan-out (scripts/bare_fanout.py, no
# database, no game) served exactly as scripts/load_stack.sh serves the site (uvicorn, the same
# flags, 2 worker processes, the pub/sub channel layer on Redis, nice -n -5), then its client
# at load_rooms.py's pace; everything it started is stopped at the end.
#
#   scripts/bare_fanout.sh ROOMS [SECONDS]
#
# Redis database 6 (flushed) and port ${FANOUT_PORT:-8200}. Settings pass through from the
# environment as for load_stack.sh: CHANNEL_LAYER, LUDO_GC_TUNE, LUDO_GC_THRESHOLDS, WORKERS,
# WS, LOAD_NICE; extra client options go in FANOUT_ARGS. It takes load_stack.sh's lock
# (/tmp/ludo-load.lock), waiting for a load run to finish rather than running beside it.
set -euo pipefail

cd "$(dirname "$0")/.."
rooms=${1:?usage: scripts/bare_fanout.sh ROOMS [SECONDS]}
seconds=${2:-60}
port=${FANOUT_PORT:-8200}
bin=.venv/bin
niceness=${LOAD_NICE:--5}
logs=$(mktemp -d /tmp/ludo-fanout.XXXXXX)

export REDIS_URL=redis://127.0.0.1:6379/6
# Redis pub/sub ignores the database number: its own prefix keeps it off any site's channels.
export BARE_PREFIX=${BARE_PREFIX:-bare_fanout}

say() { printf '[fanout] %s\n' "$*"; }

# Never beside a load run (nor another of these): wait for the lock.
exec 9>/tmp/ludo-load.lock
if ! flock -n 9; then
    say "waiting for another load run to finish (/tmp/ludo-load.lock)"
    flock 9
fi

redis-cli -n 6 flushdb >/dev/null
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    say "port $port is taken already (FANOUT_PORT picks another)" >&2
    exit 1
fi

# shellcheck source=scripts/processes.sh
source scripts/processes.sh
trap stop_all EXIT

nice -n "$niceness" $bin/uvicorn --app-dir scripts bare_fanout:application --host 127.0.0.1 \
    --port "$port" --loop uvloop --http httptools --ws "${WS:-websockets-sansio}" \
    --no-access-log --log-level warning --workers "${WORKERS:-2}" >"$logs/server.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")

up=0
for _ in $(seq 1 60); do
    kill -0 "$server_pid" 2>/dev/null || break
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        up=1
        break
    fi
    sleep 0.5
done
if [ $up = 0 ] || ! kill -0 "$server_pid" 2>/dev/null; then
    say "the server did not start; its log:"
    cat "$logs/server.log" >&2
    exit 1
fi

say "rooms $rooms, seconds $seconds, CHANNEL_LAYER=${CHANNEL_LAYER:-pubsub}" \
    "LUDO_GC_TUNE=${LUDO_GC_TUNE:-1} WORKERS=${WORKERS:-2} WS=${WS:-websockets-sansio}" \
    "nice $niceness"
say "before: $(uptime)"
# shellcheck disable=SC2086
nice -n "$niceness" $bin/python scripts/bare_fanout.py client "$rooms" \
    --url "ws://127.0.0.1:$port" --seconds "$seconds" --server-pid "$server_pid" \
    ${FANOUT_ARGS:-}
say "after: $(uptime)"
say "server log lines: $(wc -l <"$logs/server.log"); logs in $logs"
