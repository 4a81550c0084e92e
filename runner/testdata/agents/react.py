#!/usr/bin/env python3
"""Test agent (runner/external_test.go): a minimal ReAct loop, standard library only. It lists the attempt's
MCP tools, takes a first snapshot, then asks the model at $WEBBENCH_BASE_URL (OpenAI chat completions) with
the goal and that snapshot in the first user message ("Task: GOAL", a blank line, the observation: the
scripted policy's contract, scripted), runs each tool call it gets over MCP and sends the results
back as tool messages, until the model answers without tool calls or $WEBBENCH_MAX_STEPS model calls; the
answer is printed as the last stdout line. $WB_TEST_MODEL, when set, replaces $WEBBENCH_MODEL in the requests
(a mistyped model name, runner/external_fatal_test.go).

Protocols: MCP 2025-06-18 Streamable HTTP
(https://modelcontextprotocol.io/specification/2025-06-18/basic/transports), methods initialize, tools/list,
tools/call (https://modelcontextprotocol.io/specification/2025-06-18/server/tools); OpenAI Create chat
completion (https://platform.openai.com/docs/api-reference/chat/create): messages with role tool and
tool_call_id answer the assistant's tool_calls."""
import json
import os
import urllib.request

MCP = os.environ["WEBBENCH_MCP_URL"]
BASE = os.environ["WEBBENCH_BASE_URL"].rstrip("/")
VERSION = "2025-06-18"
session = None
ids = iter(range(1, 1 << 30))


def http_post(url, body, headers):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", **headers})
    return urllib.request.urlopen(req, timeout=120)


def rpc(method, params=None, notify=False):
    global session
    msg = {"jsonrpc": "2.0", "method": method, "params": params or {}}
    if not notify:
        msg["id"] = next(ids)
    headers = {"Accept": "application/json, text/event-stream"}
    if session:
        headers.update({"Mcp-Session-Id": session, "MCP-Protocol-Version": VERSION})
    with http_post(MCP, msg, headers) as resp:
        session = resp.headers.get("Mcp-Session-Id") or session
        body = resp.read().decode()
        if notify:
            return None
        if resp.headers.get("Content-Type", "").startswith("text/event-stream"):
            for line in body.splitlines():
                if line.startswith("data:"):
                    data = json.loads(line[5:].strip())
                    if data.get("id") == msg["id"]:
                        return data["result"]
        return json.loads(body)["result"]


def call_tool(name, args):
    res = rpc("tools/call", {"name": name, "arguments": args})
    return "".join(c["text"] for c in res["content"] if c["type"] == "text")


rpc("initialize", {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "react", "version": "0"}})
rpc("notifications/initialized", notify=True)
tools = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                           "parameters": t["inputSchema"]}} for t in rpc("tools/list")["tools"]]
messages = [{"role": "user", "content": "Task: " + os.environ["WEBBENCH_GOAL"] + "\n\n" + call_tool("browser_snapshot", {})}]
headers = {}
if os.environ.get("OPENAI_API_KEY"):
    headers["Authorization"] = "Bearer " + os.environ["OPENAI_API_KEY"]
answer = None
for _ in range(int(os.environ["WEBBENCH_MAX_STEPS"])):
    body = {"model": os.environ.get("WB_TEST_MODEL") or os.environ["WEBBENCH_MODEL"], "messages": messages, "tools": tools}
    if os.environ.get("WEBBENCH_SEED"):
        body["seed"] = int(os.environ["WEBBENCH_SEED"])
    with http_post(BASE + "/chat/completions", body, headers) as resp:
        msg = json.loads(resp.read().decode())["choices"][0]["message"]
    messages.append({k: v for k, v in msg.items() if k in ("role", "content", "tool_calls")})
    if not msg.get("tool_calls"):
        answer = (msg.get("content") or "").strip()
        break
    for tc in msg["tool_calls"]:
        text = call_tool(tc["function"]["name"], json.loads(tc["function"]["arguments"] or "{}"))
        messages.append({"role": "tool", "tool_call_id": tc["id"], "content": text})
print("react: done after", len(messages), "messages")
try:  # the final JSON on one line (the runner reads the last line that parses)
    answer = json.dumps(json.loads(answer))
except (TypeError, ValueError):
    answer = answer.replace("\n", " ") if answer else json.dumps({"ok": False, "final": "", "page": "", "error": "no answer"})
print(answer)
