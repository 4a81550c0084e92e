#!/bin/sh
# Test agent (runner/external_test.go): ignores SIGTERM (so the runner's SIGKILL after the grace is needed),
# starts a child `sleep` (which inherits the ignored SIGTERM) and writes its pid to $WB_TEST_PIDFILE, then
# waits far past any test deadline.
trap '' TERM
sleep 300 &
echo $! > "$WB_TEST_PIDFILE"
echo "sleeper: child $!" >&2
wait
