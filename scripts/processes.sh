# Sourced by scripts/load_stack.sh and scripts/bare_fanout.sh: `pids`, the processes a run
# starts, and `stop_all`, which stops them and their children at the end (uvicorn's worker
# processes, Celery's pool), which a parent killed with -9 would leave running. Each gets
# 10 s to go (daphne may hang on its way out, database threads still open), then -9.
pids=()
stop_all() {
    for pid in "${pids[@]}"; do pids+=($(pgrep -P "$pid" || true)); done
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for _ in $(seq 1 20); do
        alive=0
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.5
    done
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
