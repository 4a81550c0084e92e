#!/usr/bin/env python3
"""Test agent (runner/external_test.go): writes its WEBBENCH_* environment, and whether OPENAI_API_KEY and
WB_TEST_ECHO are set, as JSON to the file named by $WB_TEST_OUT; prints junk and two final JSON lines on
stdout (the last one is the answer); writes OPENAI_API_KEY's value to stderr when set (the runner must redact
it), and WB_TEST_ECHO's value too (expanded from ${VAR} in the agent's env: also redacted)."""
import json
import os
import sys

env = {k: v for k, v in os.environ.items() if k.startswith("WEBBENCH_")}
env["has_OPENAI_API_KEY"] = "OPENAI_API_KEY" in os.environ
env["WB_TEST_ECHO"] = os.environ.get("WB_TEST_ECHO")
env["cwd"] = os.getcwd()
with open(os.environ["WB_TEST_OUT"], "w") as f:
    json.dump(env, f)
print("starting the agent")
print("{not json")
print(json.dumps({"ok": False, "final": "an earlier answer", "page": "", "error": "superseded"}))
print("more junk after the first answer")
print(json.dumps({"ok": True, "final": "answer from " + env.get("WEBBENCH_TASK_ID", "?"), "page": "done", "error": None}))
sys.stdout.flush()
if "OPENAI_API_KEY" in os.environ:
    print("key=" + os.environ["OPENAI_API_KEY"], file=sys.stderr)
if os.environ.get("WB_TEST_ECHO"):
    print("echo=" + os.environ["WB_TEST_ECHO"], file=sys.stderr)  # a secret from ${VAR}: the runner must redact it
print("envdump done", file=sys.stderr)
