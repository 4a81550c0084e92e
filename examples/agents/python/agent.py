#!/usr/bin/env python3
"""webbench reference external agent (Python, standard library only).

A ReAct loop over webbench's MCP browser tools and the OpenAI chat-completions protocol, written to the
contract of issue 15 item 2 (README "Bring your own agent"). The MCP client side of the Streamable HTTP
transport and the chat call are written here with urllib; nothing outside the standard library is used.

Inputs (environment):
  WEBBENCH_MCP_URL      the attempt's MCP server (Streamable HTTP), e.g. http://127.0.0.1:PORT/mcp   (required)
  WEBBENCH_GOAL         the task text                                                              (required)
  WEBBENCH_MODEL        the model name sent in each chat request                                   (required)
  WEBBENCH_BASE_URL     the chat-completions endpoint's base URL, e.g. http://127.0.0.1:PORT/v1    (required)
  WEBBENCH_SEED         integer, sent as the request's `seed`
  WEBBENCH_TEMPERATURE / WEBBENCH_TOP_P / WEBBENCH_MAX_TOKENS   sent when set
  WEBBENCH_DEADLINE     RFC 3339; no request outlives it
  WEBBENCH_MAX_STEPS    model calls at most (default 50)
  OPENAI_API_KEY        sent as the bearer token when set; no Authorization header otherwise
  WEBBENCH_GUARDS       name=on|off,... (all seven guards); this agent implements the model-level ones:
    repeat_guard    on: an identical call (tool + canonical arguments) with an identical result gets a
                    "### Repeated call" note from its 3rd time in a row; after the 5th the next request carries no
                    tools and a system message asking for the final JSON; and a call (tool + arguments) that
                    failed 3 times in a row is not run again (the model gets an error tool message instead; other
                    calls in between do not reset its count, a success of it does).
    final_recovery  on: when the model ends with empty or non-JSON content, or the step limit is reached, one
                    more request without tools and a user message asking for the final JSON (the built-in
                    agent's text, docs/GUARDS.md section 3).
    visual_progress on: a successful browser_mouse_click_xy counts as an action for the stall rule (the built-in
                    agent's, DESIGN.md "Iteration and stall": 3 iterations with a failed call and no successful
                    action, successful reads in between not counting, end the attempt); off, it does not.
    intercept_hint, snapshot_ready, stale_ref_refresh, evaluate_isolation: webbench's MCP server runs them; this
                    agent only logs their state.

Output: logs on stderr only; the last line of stdout is the final JSON object {"ok", "final", "page", "error"}
(the built-in agent's shape, agent.ParseFinal in agent/loop.go). Exit 0 after printing it; 1 on an
unrecoverable error (bad environment, MCP server unreachable, a failed model call) -- then no final JSON.
"""

import datetime
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request

# The MCP revision this client speaks. webbench's server (the official Go SDK, v1.8.0) supports it among
# 2024-11-05 .. 2026-07-28 and answers initialize with the same version.
# https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle#version-negotiation
PROTOCOL_VERSION = "2025-06-18"

# Texts shared with webbench's built-in guards (agent/guard), so the scripted policy reads them as it reads the
# built-in agent's.
RECOVERY_PROMPT = (
    "Tools are disabled now. Using only what you have already seen in this conversation, reply "
    'with the final JSON object {"ok": true|false, "final": "<answer>", "page": "<url>", "error": '
    'null|"<reason>"} and nothing else.'
)
RECOVERY_STEP_LIMIT_PREFIX = "The step limit has been reached. "
REPEAT_SYSTEM_SECTION = (
    "You have repeated the same tool call several times without new information, so "
    "tools are withheld for this turn. Using what you have already seen, reply now with only the final JSON "
    'object: {"ok": true|false, "final": "<answer>", "page": "<url>", "error": null|"<reason>"}.'
)
REPEAT_NOTE_AT = 3
REPEAT_WITHHOLD_AT = 5
FAILED_REPEAT_LIMIT = 3
STALL_LIMIT = 3

SYSTEM_PROMPT = """You are a web agent operating a real browser through tools. Take browser_snapshot to see the
page as an accessibility tree in YAML, where each interactive element carries a reference like [ref=e12].
Element tools take `target`: a ref from the LATEST snapshot. Actions return the new page snapshot. If something
covers the element you want to click (a cookie dialog, a modal), close it first. Do not repeat a call that did not
change anything.
When you are done, reply WITHOUT tool calls, with exactly one JSON object and nothing else:
{"ok": true, "final": "<your answer or a summary of what you did>", "page": "<url of the page>", "error": null}
If you cannot complete the task, reply {"ok": false, "final": "", "page": "<url>", "error": "<why>"}."""

GUARD_NAMES = ["intercept_hint", "repeat_guard", "final_recovery", "snapshot_ready", "stale_ref_refresh",
               "evaluate_isolation", "visual_progress"]
MODEL_LEVEL = {"repeat_guard", "final_recovery", "visual_progress"}


class Fatal(Exception):
    """An unrecoverable error: the agent exits 1 without a final answer."""


def log(msg):
    sys.stderr.write("[agent] " + msg + "\n")
    sys.stderr.flush()


def env(name, required=False):
    v = os.environ.get(name, "")
    if not v and required:
        raise Fatal(name + " is not set")
    return v or None


def num(name, kind):
    v = env(name)
    if v is None:
        return None
    try:
        return kind(v)
    except ValueError:
        raise Fatal("%s=%s is not %s" % (name, v, "an integer" if kind is int else "a number"))


def parse_guards(s):
    """WEBBENCH_GUARDS (name=on|off, comma-separated) as a dict; unset guards are on (webbench's default)."""
    out = {g: True for g in GUARD_NAMES}
    for part in (s or "").split(","):
        part = part.strip()
        if not part:
            continue
        name, _, val = part.partition("=")
        name, val = name.strip(), val.strip()
        if name not in out:
            raise Fatal("WEBBENCH_GUARDS: unknown guard %r" % name)
        if val not in ("on", "off"):
            raise Fatal("WEBBENCH_GUARDS: %s=%s: want on or off" % (name, val))
        out[name] = val == "on"
    return out


FENCE_RE = re.compile(r"^```(?:json|JSON)?\s*\n(.*?)\n?```$", re.S)


def parse_final(text):
    """The model's closing content read as agent.ParseFinal does (agent/loop.go): trimmed, an optional ```json
    fence removed, one JSON object with an "ok" key. None when it is not that."""
    s = (text or "").strip()
    m = FENCE_RE.match(s)
    if m:
        s = m.group(1).strip()
    if not s.startswith("{"):
        return None
    try:
        v = json.loads(s)
    except ValueError:
        return None
    if not isinstance(v, dict) or "ok" not in v:
        return None
    return v


PAGE_URL_RE = re.compile(r"^- Page URL: (.*)$", re.M)


def last_page_url(text):
    """The last "- Page URL: " line of a tool result (the built-in result text, browser.Result), or None."""
    found = PAGE_URL_RE.findall(text)
    return found[-1].strip() if found else None


def parse_deadline(s):
    """RFC 3339 to a Unix time; fromisoformat of Python 3.11 reads "Z" and offsets."""
    try:
        return datetime.datetime.fromisoformat(s).timestamp()
    except ValueError:
        raise Fatal("WEBBENCH_DEADLINE=%s is not RFC 3339" % s)


class MCPError(Exception):
    """A JSON-RPC error response (a protocol error, e.g. an unknown tool)."""


class MCPClient:
    """The client side of MCP's Streamable HTTP transport, revision 2025-06-18.

    https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http
    Every JSON-RPC message is a POST to the one endpoint, with Accept listing both application/json and
    text/event-stream (#sending-messages-to-the-server); a request is answered either by one JSON object or by
    an SSE stream whose events carry JSON-RPC messages, the response among them; a notification is answered
    202 Accepted. The session id the server returns on the initialize response (Mcp-Session-Id header) is sent on
    every later request (#session-management), and so is MCP-Protocol-Version (#protocol-version-header).
    """

    def __init__(self, url, deadline):
        self.url = url
        self.deadline = deadline
        self.session = None
        self.next_id = 0

    def _timeout(self):
        return max(1.0, self.deadline - time.time()) if self.deadline else 600.0

    def _post(self, msg):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        if msg.get("method") != "initialize":
            headers["MCP-Protocol-Version"] = PROTOCOL_VERSION
        req = urllib.request.Request(self.url, data=json.dumps(msg).encode(), headers=headers, method="POST")
        try:
            return urllib.request.urlopen(req, timeout=self._timeout())
        except urllib.error.HTTPError as e:
            body = e.read().decode("utf-8", "replace")[:500]
            raise Fatal("MCP %s: HTTP %d: %s" % (msg.get("method"), e.code, body.strip()))
        except urllib.error.URLError as e:
            raise Fatal("MCP %s: %s" % (msg.get("method"), e.reason))

    def request(self, method, params=None):
        """Sends a JSON-RPC request and returns its result; an error response raises MCPError."""
        self.next_id += 1
        rid = self.next_id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        with self._post(msg) as resp:
            if method == "initialize":
                self.session = resp.headers.get("Mcp-Session-Id")
            ctype = (resp.headers.get("Content-Type") or "").split(";")[0].strip()
            if ctype == "text/event-stream":
                reply = self._from_sse(resp, rid)
            else:
                reply = json.loads(resp.read().decode("utf-8"))
        if reply is None:
            raise Fatal("MCP %s: the stream ended without a response" % method)
        if "error" in reply:
            e = reply["error"]
            raise MCPError("%s (code %s)" % (e.get("message"), e.get("code")))
        return reply.get("result", {})

    def _from_sse(self, resp, rid):
        """Reads an SSE stream (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation)
        until the JSON-RPC response with id rid; other messages (notifications, server requests) are logged and
        skipped -- this client declares no capabilities, so the server sends it no requests it must answer."""
        data = []
        for raw in resp:
            line = raw.decode("utf-8").rstrip("\r\n")
            if line == "":
                if data:
                    m = json.loads("\n".join(data))
                    data = []
                    if m.get("id") == rid and ("result" in m or "error" in m):
                        return m
                    log("MCP: skipped a server message: %s" % m.get("method", "?"))
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if field == "data":
                data.append(value)
        return None

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        with self._post(msg) as resp:
            resp.read()

    def initialize(self):
        """The lifecycle's initialization phase:
        https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle#initialization"""
        res = self.request("initialize", {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                                          "clientInfo": {"name": "webbench-reference-agent-python",
                                                         "version": "1.0.0"}})
        if res.get("protocolVersion") != PROTOCOL_VERSION:
            raise Fatal("MCP server answered protocol %s; this client speaks %s" %
                        (res.get("protocolVersion"), PROTOCOL_VERSION))
        self.notify("notifications/initialized")
        return res

    def list_tools(self):
        """tools/list, following nextCursor: https://modelcontextprotocol.io/specification/2025-06-18/server/tools#listing-tools"""
        tools, cursor = [], None
        while True:
            res = self.request("tools/list", {"cursor": cursor} if cursor else None)
            tools.extend(res.get("tools", []))
            cursor = res.get("nextCursor")
            if not cursor:
                return tools

    def call_tool(self, name, args):
        """tools/call: https://modelcontextprotocol.io/specification/2025-06-18/server/tools#calling-tools
        Returns (text content joined with newlines, isError)."""
        res = self.request("tools/call", {"name": name, "arguments": args})
        text = "\n".join(p.get("text", "") for p in res.get("content", []) if p.get("type") == "text")
        return text, bool(res.get("isError"))

    def close(self):
        """Ends the session with an HTTP DELETE (#session-management); errors are ignored."""
        if not self.session:
            return
        req = urllib.request.Request(self.url, method="DELETE", headers={
            "Mcp-Session-Id": self.session, "MCP-Protocol-Version": PROTOCOL_VERSION})
        try:
            urllib.request.urlopen(req, timeout=5).close()
        except (urllib.error.URLError, OSError):
            pass


def chat_completion(base_url, api_key, body, timeout):
    """POST {base_url}/chat/completions (https://platform.openai.com/docs/api-reference/chat/create); returns the
    first choice's message."""
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = "Bearer " + api_key
    req = urllib.request.Request(base_url.rstrip("/") + "/chat/completions", data=json.dumps(body).encode(),
                                 headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            res = json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as e:
        raise Fatal("chat completion: HTTP %d: %s" % (e.code, e.read().decode("utf-8", "replace")[:500].strip()))
    except urllib.error.URLError as e:
        raise Fatal("chat completion: %s" % e.reason)
    choices = res.get("choices") or []
    if not choices:
        raise Fatal("chat completion: no choices")
    return choices[0].get("message") or {}


def canonical(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def run():
    mcp_url = env("WEBBENCH_MCP_URL", True)
    goal = env("WEBBENCH_GOAL", True)
    model = env("WEBBENCH_MODEL", True)
    base_url = env("WEBBENCH_BASE_URL", True)
    seed = num("WEBBENCH_SEED", int)
    temperature = num("WEBBENCH_TEMPERATURE", float)
    top_p = num("WEBBENCH_TOP_P", float)
    max_tokens = num("WEBBENCH_MAX_TOKENS", int)
    max_steps = num("WEBBENCH_MAX_STEPS", int)
    max_steps = 50 if max_steps is None else max_steps
    if max_steps < 1:
        raise Fatal("WEBBENCH_MAX_STEPS=%d: want at least 1" % max_steps)
    dl = env("WEBBENCH_DEADLINE")
    deadline = parse_deadline(dl) if dl else None
    guards = parse_guards(env("WEBBENCH_GUARDS"))
    for g in GUARD_NAMES:
        log("guard %s=%s (%s)" % (g, "on" if guards[g] else "off",
                                   "this agent" if g in MODEL_LEVEL else "webbench's MCP server"))
    api_key = env("OPENAI_API_KEY")

    def timeout():
        return max(1.0, deadline - time.time()) if deadline else 600.0

    mcp = MCPClient(mcp_url, deadline)
    info = mcp.initialize()
    log("MCP session %s with %s, protocol %s" % ("(none)" if not mcp.session else "opened",
                                                   info.get("serverInfo", {}).get("name"), info["protocolVersion"]))
    listed = mcp.list_tools()
    tools = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                               "parameters": t.get("inputSchema", {"type": "object"})}}
             for t in listed]
    read_only = {t["name"]: bool((t.get("annotations") or {}).get("readOnlyHint")) for t in listed}
    log("%d tools: %s" % (len(tools), ", ".join(t["function"]["name"] for t in tools)))

    # The first user message is the goal alone: the policy asks for a snapshot first (issue 15 item 2).
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": goal}]
    state = {"page": ""}

    def chat(with_tools, extra_system=None):
        body = {"model": model, "messages": messages + ([{"role": "system", "content": extra_system}]
                                                        if extra_system else [])}
        if with_tools:
            body["tools"] = tools
        for k, v in (("seed", seed), ("temperature", temperature), ("top_p", top_p), ("max_tokens", max_tokens)):
            if v is not None:
                body[k] = v
        return chat_completion(base_url, api_key, body, timeout())

    def finish(content, reason, step_limit):
        f = parse_final(content)
        if f is not None:
            return f
        if guards["final_recovery"] and (deadline is None or time.time() < deadline):
            log("final_recovery: %s; one recovery call without tools" % reason)
            messages.append({"role": "user", "content": (RECOVERY_STEP_LIMIT_PREFIX if step_limit else "") +
                             RECOVERY_PROMPT})
            try:
                m = chat(False)
                r = parse_final(m.get("content") or "")
                if r is not None:
                    return r
                if (m.get("content") or "").strip():
                    content = m["content"]
            except Fatal as e:
                log("final_recovery: the recovery call failed: %s" % e)
        return {"ok": False, "final": content, "page": state["page"], "error": reason}

    def is_action(name):
        # Action tools change the page: not read-only, not browser_evaluate (page script), and the coordinate
        # click only when visual_progress is on.
        return (not read_only.get(name) and name != "browser_evaluate" and
                (name != "browser_mouse_click_xy" or guards["visual_progress"]))

    streak_key, streak, withhold, stalled = "", 0, False, 0
    failures = {}  # consecutive failures of each identical call
    try:
        for step in range(1, max_steps + 1):
            if deadline is not None and time.time() >= deadline:
                return {"ok": False, "final": "", "page": state["page"], "error": "the attempt deadline has passed"}
            offer = not withhold
            msg = chat(offer, None if offer else REPEAT_SYSTEM_SECTION)
            if not offer:
                log("repeat_guard: tools withheld for this request")
            withhold = False
            calls = [c for c in (msg.get("tool_calls") or []) if c.get("type", "function") == "function"]
            assistant = {"role": "assistant", "content": msg.get("content")}
            if calls:
                assistant["tool_calls"] = calls
            messages.append(assistant)
            if not calls or not offer:
                content = msg.get("content") or ""
                log("step %d: the model answered (%d chars)" % (step, len(content)))
                return finish(content, "the model's last reply is not the final JSON object" if content.strip()
                              else "the model's last reply is empty", False)
            failed = acted = False
            for c in calls:
                name = c["function"]["name"]
                try:
                    args = json.loads(c["function"].get("arguments") or "{}")
                except ValueError as e:
                    messages.append({"role": "tool", "tool_call_id": c["id"],
                                     "content": "### Error\nthe arguments of %s are not valid JSON: %s" % (name, e)})
                    failed = True
                    continue
                key = name + " " + canonical(args)
                failed_before = failures.get(key, 0)
                if guards["repeat_guard"] and failed_before >= FAILED_REPEAT_LIMIT:
                    log("step %d: repeat_guard: %s not run again (failed %d times)" % (step, name, failed_before))
                    messages.append({"role": "tool", "tool_call_id": c["id"], "content":
                                     "### Error\nNot run: this identical call failed %d times in a row. "
                                     "Do something different." % failed_before})
                    failed = True
                    continue
                try:
                    text, is_error = mcp.call_tool(name, args)
                except MCPError as e:
                    # A protocol error (an unknown tool, bad request): the model reads it as a failed call.
                    text, is_error = "### Error\n%s" % e, True
                log("step %d: %s %s -> %s (%d chars)" % (step, name, canonical(args), "error" if is_error else "ok",
                                                         len(text)))
                state["page"] = last_page_url(text) or state["page"]
                if is_error:
                    failed = True
                    failures[key] = failed_before + 1
                else:
                    failures.pop(key, None)
                    acted = acted or is_action(name)
                if guards["repeat_guard"]:
                    rk = key + "\n" + text
                    streak = streak + 1 if rk == streak_key else 1
                    streak_key = rk
                    if streak >= REPEAT_NOTE_AT:
                        text += ("\n### Repeated call\nThis call repeats the previous ones (%d in a row) and shows "
                                 "nothing new. If you already have the answer, reply now with the final JSON object; "
                                 "otherwise do something different." % streak)
                        log("step %d: repeat_guard: note (streak %d)" % (step, streak))
                    if streak >= REPEAT_WITHHOLD_AT:
                        withhold = True
                messages.append({"role": "tool", "tool_call_id": c["id"], "content": text})
            # The stall rule (DESIGN.md "Iteration and stall"): a failed call and no successful action -> stalled;
            # a successful action resets it; successful reads only leave it as it is.
            if acted:
                stalled = 0
            elif failed:
                stalled += 1
            if stalled >= STALL_LIMIT:
                log("stall: %d iterations with a failed call and no successful action" % stalled)
                return {"ok": False, "final": "", "page": state["page"], "error": "no further browser progress"}
        log("step limit %d reached" % max_steps)
        return finish("", "max_iterations_reached", True)
    finally:
        mcp.close()


def main():
    try:
        final = run()
    except Fatal as e:
        log("fatal: %s" % e)
        return 1
    sys.stdout.write(json.dumps(final, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
