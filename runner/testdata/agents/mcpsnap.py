#!/usr/bin/env python3
"""Test agent (runner/external_test.go): one real tool call over MCP's Streamable HTTP transport, standard
library only. It POSTs initialize, the notifications/initialized notification and a tools/call of
browser_snapshot to $WEBBENCH_MCP_URL, writes the result's text to $WB_TEST_OUT and prints a final JSON line.

Protocol: MCP 2025-06-18, "Transports" - Streamable HTTP
(https://modelcontextprotocol.io/specification/2025-06-18/basic/transports): every message is an HTTP POST
with Accept: application/json, text/event-stream; the server answers a request with a JSON body or an SSE
stream whose data: lines carry the JSON-RPC response; the initialize response may set Mcp-Session-Id, which
later requests send back together with MCP-Protocol-Version."""
import json
import os
import sys
import urllib.request

URL = os.environ["WEBBENCH_MCP_URL"]
VERSION = "2025-06-18"
session = None


def post(msg):
    global session
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = VERSION
    req = urllib.request.Request(URL, data=json.dumps(msg).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=60) as resp:
        session = resp.headers.get("Mcp-Session-Id") or session
        body = resp.read().decode()
        if "id" not in msg:
            return None  # a notification: 202 Accepted, no body
        if resp.headers.get("Content-Type", "").startswith("text/event-stream"):
            for line in body.splitlines():
                if line.startswith("data:"):
                    data = json.loads(line[5:].strip())
                    if data.get("id") == msg["id"]:
                        return data
            raise SystemExit("no response in the event stream: " + body)
        return json.loads(body)


init = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "mcpsnap", "version": "0"}}})
print("server:", json.dumps(init["result"]["serverInfo"]), file=sys.stderr)
post({"jsonrpc": "2.0", "method": "notifications/initialized"})
res = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "browser_snapshot", "arguments": {}}})
text = "".join(c["text"] for c in res["result"]["content"] if c["type"] == "text")
with open(os.environ["WB_TEST_OUT"], "w") as f:
    f.write(text)
print(json.dumps({"ok": True, "final": "snapshot taken", "page": "", "error": None}))
