#!/bin/sh
# Test agent (runner/external_blame_test.go): dies of a segmentation fault without a final answer.
echo "about to crash" >&2
kill -SEGV $$
