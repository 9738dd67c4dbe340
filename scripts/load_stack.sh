#!/usr/bin/env bash
# One load run: a fresh scratch database, the site as the README's Production section runs it
# (uvicorn with 2 worker processes, DEBUG off; or daphne), a Celery worker (2 children) and
# beat, then scripts/load_rooms.py against it; everything it started is stopped at the end.
# The figures are for scripts/LOAD.md.
#
#   scripts/load_stack.sh SERVER ROOMS [SECONDS]       SERVER: daphne | uvicorn
#
# Every process of the run gets `nice -n $LOAD_NICE` (default -5): the site, the worker, beat,
# the load client and the PostgreSQL backends serving the run's database (reniced while the
# run lasts), so that other work on a shared machine disturbs the figures less.
#
# PostgreSQL and Redis must be up on loopback (as .ci/run starts them). The run uses the
# database ludo_load (dropped and made anew) and Redis database 5 (flushed). Settings pass
# through from the environment: CHANNEL_LAYER, DB_CONN_MAX_AGE, DB_POOL, LUDO_GC_TUNE,
# LUDO_GC_THRESHOLDS, LUDO_DB_THREADS; for uvicorn WORKERS (processes, default 2 as the README
# says) and WS (its WebSocket implementation, default websockets-sansio). Extra load_rooms.py options go in LOAD_ARGS.
# LOAD_SYNC_COMMIT=off sets synchronous_commit on the scratch database (a diagnostic).
set -euo pipefail

cd "$(dirname "$0")/.."
server=${1:?usage: scripts/load_stack.sh daphne|uvicorn ROOMS [SECONDS]}
rooms=${2:?usage: scripts/load_stack.sh daphne|uvicorn ROOMS [SECONDS]}
seconds=${3:-60}
port=${LOAD_PORT:-8100}
bin=.venv/bin
niceness=${LOAD_NICE:--5}
logs=$(mktemp -d /tmp/ludo-load.XXXXXX)

export DATABASE_URL=postgres://postgres@127.0.0.1:5432/ludo_load
export REDIS_URL=redis://127.0.0.1:6379/5
export DEBUG=0
export SECRET_KEY=load-run-only-not-a-secret
export ALLOWED_HOSTS=127.0.0.1,localhost

say() { printf '[load] %s\n' "$*"; }

# One run at a time: two would share the port, the database and Redis database 5.
exec 9>/tmp/ludo-load.lock
if ! flock -n 9; then
    echo "another load run is going (/tmp/ludo-load.lock)" >&2
    exit 1
fi

psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS ludo_load WITH (FORCE)" </dev/null
psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE ludo_load" </dev/null
if [ -n "${LOAD_SYNC_COMMIT:-}" ]; then
    # A diagnostic only (LOAD_SYNC_COMMIT=off: commits stop waiting for the WAL flush); the
    # site itself never changes it.
    psql -h 127.0.0.1 -U postgres -qc \
        "ALTER DATABASE ludo_load SET synchronous_commit = $LOAD_SYNC_COMMIT" </dev/null
fi
redis-cli -n 5 flushdb >/dev/null
$bin/python manage.py migrate --noinput -v0

# shellcheck source=scripts/processes.sh
source scripts/processes.sh
trap stop_all EXIT

case $server in
daphne)
    nice -n "$niceness" $bin/daphne -b 127.0.0.1 -p "$port" --websocket_connect_timeout 30 \
        ludo_site.asgi:application >"$logs/server.log" 2>&1 &
    ;;
uvicorn)
    nice -n "$niceness" $bin/uvicorn ludo_site.asgi:application --host 127.0.0.1 --port "$port" \
        --loop uvloop --http httptools --ws "${WS:-websockets-sansio}" --no-access-log --log-level warning \
        --workers "${WORKERS:-2}" >"$logs/server.log" 2>&1 &
    ;;
*)
    echo "SERVER must be daphne or uvicorn, not $server" >&2
    exit 2
    ;;
esac
server_pid=$!
pids+=("$server_pid")
nice -n "$niceness" $bin/celery -A ludo_site worker --concurrency 2 -l warning \
    >"$logs/worker.log" 2>&1 &
worker_pid=$!
pids+=("$worker_pid")
nice -n "$niceness" $bin/celery -A ludo_site beat -l warning -s "$logs/beat-schedule" >"$logs/beat.log" 2>&1 &
beat_pid=$!
pids+=("$beat_pid")

for _ in $(seq 1 60); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    sleep 0.5
done

say "server $server, rooms $rooms, seconds $seconds," \
    "CHANNEL_LAYER=${CHANNEL_LAYER:-pubsub} DB_CONN_MAX_AGE=${DB_CONN_MAX_AGE:-default}" \
    "DB_POOL=${DB_POOL:-default} LUDO_GC_TUNE=${LUDO_GC_TUNE:-1}" \
    "LUDO_DB_THREADS=${LUDO_DB_THREADS:-16} WORKERS=${WORKERS:-2} WS=${WS:-websockets-sansio} synchronous_commit=${LOAD_SYNC_COMMIT:-on}" \
    "nice $niceness"
# The database backends serving this run, reniced as they appear.
(
    while true; do
        for pid in $(psql -h 127.0.0.1 -U postgres -tAc \
            "SELECT pid FROM pg_stat_activity WHERE datname = 'ludo_load'" </dev/null); do
            renice -n "$niceness" -p "$pid" >/dev/null 2>&1 || true
        done
        sleep 2
    done
) &
pids+=($!)

say "before: $(uptime)"
# shellcheck disable=SC2086
nice -n "$niceness" $bin/python scripts/load_rooms.py "$rooms" --url "http://127.0.0.1:$port" \
    --seconds "$seconds" --server-pid "$server_pid" --watch "celery=$worker_pid" \
    --watch "beat=$beat_pid" ${LOAD_ARGS:-}
say "after: $(uptime)"
say "server log lines: $(wc -l <"$logs/server.log"), worker errors:" \
    "$(grep -c -i error "$logs/worker.log" || true); logs in $logs"
