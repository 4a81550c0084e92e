#!/bin/sh
# Test agent (runner/external_test.go): some stdout that is no final answer, a line on stderr, exit 3.
echo "thinking..."
echo '{"ok": true, "final": "not on a line of its own"} trailing'
echo "crash-agent: something broke" >&2
exit 3
