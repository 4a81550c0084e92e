// webbench reference external agent (TypeScript/Node): a ReAct loop over webbench's MCP browser tools and the
// OpenAI chat-completions protocol, written to the contract of issue 15 item 2 (README "Bring your own agent").
//
// Inputs (environment):
//   WEBBENCH_MCP_URL      the attempt's MCP server (Streamable HTTP), e.g. http://127.0.0.1:PORT/mcp   (required)
//   WEBBENCH_GOAL         the task text                                                              (required)
//   WEBBENCH_MODEL        the model name sent in each chat request                                   (required)
//   WEBBENCH_BASE_URL     the chat-completions endpoint's base URL, e.g. http://127.0.0.1:PORT/v1    (required)
//   WEBBENCH_SEED         integer, sent as the request's `seed`
//   WEBBENCH_TEMPERATURE / WEBBENCH_TOP_P / WEBBENCH_MAX_TOKENS   sent when set
//   WEBBENCH_DEADLINE     RFC 3339; no request outlives it
//   WEBBENCH_MAX_STEPS    model calls at most (default 50)
//   OPENAI_API_KEY        sent as the bearer token when set; no Authorization header otherwise
//   WEBBENCH_GUARDS       name=on|off,… (all seven guards); this agent implements the model-level ones:
//     repeat_guard    on: an identical call (tool + canonical arguments) with an identical result gets a
//                     "### Repeated call" note from its 3rd time in a row; after the 5th the next request carries
//                     no tools and a system message asking for the final JSON; and a call (tool + arguments) that
//                     failed 3 times in a row is not run again (the model gets an error tool message instead;
//                     other calls in between do not reset its count, a success of it does).
//     final_recovery  on: when the model ends with empty or non-JSON content, or the step limit is reached, one
//                     more request without tools and a user message asking for the final JSON (the built-in
//                     agent's text, GUARDS.md §3).
//     visual_progress on: a successful browser_mouse_click_xy counts as an action for the stall rule (the built-in
//                     agent's, DESIGN.md "Iteration and stall": 3 iterations with a failed call and no successful
//                     action, successful reads in between not counting, end the attempt); off, it does not.
//     intercept_hint, snapshot_ready, stale_ref_refresh, evaluate_isolation: webbench's MCP server runs them;
//                     this agent only logs their state.
//
// Output: logs on stderr only; the last line of stdout is the final JSON object {"ok", "final", "page", "error"}
// (the built-in agent's shape, agent.ParseFinal in agent/loop.go). Exit 0 after printing it; 1 on an
// unrecoverable error (bad environment, MCP server unreachable) — then no final JSON is printed.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import OpenAI from "openai";
import type {
  ChatCompletionMessageParam,
  ChatCompletionFunctionTool,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";

// Texts shared with webbench's built-in guards (agent/guard), so the scripted policy reads them as it reads the
// built-in agent's.
const RECOVERY_PROMPT =
  "Tools are disabled now. Using only what you have already seen in this conversation, reply " +
  'with the final JSON object {"ok": true|false, "final": "<answer>", "page": "<url>", "error": ' +
  'null|"<reason>"} and nothing else.';
const RECOVERY_STEP_LIMIT_PREFIX = "The step limit has been reached. ";
const REPEAT_SYSTEM_SECTION =
  "You have repeated the same tool call several times without new information, so " +
  "tools are withheld for this turn. Using what you have already seen, reply now with only the final JSON " +
  'object: {"ok": true|false, "final": "<answer>", "page": "<url>", "error": null|"<reason>"}.';
const REPEAT_NOTE_AT = 3;
const REPEAT_WITHHOLD_AT = 5;
const FAILED_REPEAT_LIMIT = 3;
const STALL_LIMIT = 3;

const SYSTEM_PROMPT = `You are a web agent operating a real browser through tools. Take browser_snapshot to see the
page as an accessibility tree in YAML, where each interactive element carries a reference like [ref=e12].
Element tools take \`target\`: a ref from the LATEST snapshot. Actions return the new page snapshot. If something
covers the element you want to click (a cookie dialog, a modal), close it first. Do not repeat a call that did not
change anything.
When you are done, reply WITHOUT tool calls, with exactly one JSON object and nothing else:
{"ok": true, "final": "<your answer or a summary of what you did>", "page": "<url of the page>", "error": null}
If you cannot complete the task, reply {"ok": false, "final": "", "page": "<url>", "error": "<why>"}.`;

const GUARD_NAMES = [
  "intercept_hint",
  "repeat_guard",
  "final_recovery",
  "snapshot_ready",
  "stale_ref_refresh",
  "evaluate_isolation",
  "visual_progress",
];
const MODEL_LEVEL = new Set(["repeat_guard", "final_recovery", "visual_progress"]);

/** The final answer, the built-in agent's shape (agent.FinalAnswer). */
interface Final {
  ok: boolean;
  final: string;
  page: string;
  error: string | null;
  [k: string]: unknown;
}

function log(msg: string): void {
  process.stderr.write(`[agent] ${msg}\n`);
}

class Fatal extends Error {}

function env(name: string, required = false): string | undefined {
  const v = process.env[name];
  if ((v === undefined || v === "") && required) throw new Fatal(`${name} is not set`);
  return v === "" ? undefined : v;
}

function num(name: string, int: boolean): number | undefined {
  const v = env(name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || (int && !Number.isInteger(n))) throw new Fatal(`${name}=${v} is not a${int ? "n integer" : " number"}`);
  return n;
}

/** parseGuards reads WEBBENCH_GUARDS (name=on|off, comma-separated); unset guards are on (webbench's default). */
export function parseGuards(s: string | undefined): Map<string, boolean> {
  const m = new Map<string, boolean>(GUARD_NAMES.map((g) => [g, true]));
  for (const part of (s ?? "").split(",")) {
    const p = part.trim();
    if (!p) continue;
    const [name, val] = p.split("=", 2).map((x) => x.trim());
    if (!GUARD_NAMES.includes(name)) throw new Fatal(`WEBBENCH_GUARDS: unknown guard ${JSON.stringify(name)}`);
    if (val !== "on" && val !== "off") throw new Fatal(`WEBBENCH_GUARDS: ${name}=${val}: want on or off`);
    m.set(name, val === "on");
  }
  return m;
}

/** canonical is JSON with object keys sorted, for comparing call arguments. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return "{" + Object.keys(o).sort().map((k) => JSON.stringify(k) + ":" + canonical(o[k])).join(",") + "}";
  }
  return JSON.stringify(v);
}

/**
 * parseFinal reads the model's closing content as agent.ParseFinal does (agent/loop.go): trimmed, an optional
 * ```json fence removed, one JSON object with an "ok" key. It returns null when the content is not that.
 */
export function parseFinal(text: string): Final | null {
  let s = text.trim();
  const m = /^```(?:json|JSON)?\s*\n([\s\S]*?)\n?```$/.exec(s);
  if (m) s = m[1].trim();
  if (!s.startsWith("{")) return null;
  try {
    const v = JSON.parse(s);
    if (!v || typeof v !== "object" || Array.isArray(v) || !("ok" in v)) return null;
    return v as Final;
  } catch {
    return null;
  }
}

const PAGE_URL_RE = /^- Page URL: (.*)$/gm;

/** lastPageURL is the last "- Page URL: " line of a tool result (the built-in result text, browser.Result). */
function lastPageURL(text: string): string | undefined {
  let u: string | undefined;
  for (const m of text.matchAll(PAGE_URL_RE)) u = m[1].trim();
  return u;
}

async function main(): Promise<number> {
  const mcpURL = env("WEBBENCH_MCP_URL", true)!;
  const goal = env("WEBBENCH_GOAL", true)!;
  const model = env("WEBBENCH_MODEL", true)!;
  const baseURL = env("WEBBENCH_BASE_URL", true)!;
  const seed = num("WEBBENCH_SEED", true);
  const temperature = num("WEBBENCH_TEMPERATURE", false);
  const topP = num("WEBBENCH_TOP_P", false);
  const maxTokens = num("WEBBENCH_MAX_TOKENS", true);
  const maxSteps = num("WEBBENCH_MAX_STEPS", true) ?? 50;
  if (maxSteps < 1) throw new Fatal(`WEBBENCH_MAX_STEPS=${maxSteps}: want at least 1`);
  const dl = env("WEBBENCH_DEADLINE");
  const deadline = dl === undefined ? Infinity : Date.parse(dl);
  if (Number.isNaN(deadline)) throw new Fatal(`WEBBENCH_DEADLINE=${dl} is not RFC 3339`);
  const guards = parseGuards(env("WEBBENCH_GUARDS"));
  for (const [g, on] of guards) {
    log(`guard ${g}=${on ? "on" : "off"} (${MODEL_LEVEL.has(g) ? "this agent" : "webbench's MCP server"})`);
  }
  const apiKey = env("OPENAI_API_KEY");
  // The openai client insists on a key; without one the Authorization header is removed (null unsets a header).
  const openai = new OpenAI({
    baseURL,
    apiKey: apiKey ?? "unused",
    defaultHeaders: apiKey ? undefined : { Authorization: null },
    maxRetries: 0,
  });

  const remaining = (): number => Math.max(1, deadline - Date.now());
  const timeout = (): number => (deadline === Infinity ? 10 * 60_000 : remaining());

  const mcp = new Client({ name: "webbench-reference-agent-node", version: "1.0.0" });
  try {
    await mcp.connect(new StreamableHTTPClientTransport(new URL(mcpURL)), { timeout: timeout() });
  } catch (e) {
    throw new Fatal(`MCP connect ${mcpURL}: ${(e as Error).message}`);
  }
  const listed = await mcp.listTools(undefined, { timeout: timeout() });
  const tools: ChatCompletionFunctionTool[] = listed.tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description ?? "", parameters: t.inputSchema as Record<string, unknown> },
  }));
  const readOnly = new Map(listed.tools.map((t) => [t.name, t.annotations?.readOnlyHint === true]));
  // Action tools change the page: not read-only, not browser_evaluate (page script), and the coordinate click only
  // when visual_progress is on.
  const isAction = (name: string): boolean =>
    !readOnly.get(name) &&
    name !== "browser_evaluate" &&
    (name !== "browser_mouse_click_xy" || guards.get("visual_progress") === true);
  log(`${tools.length} tools: ${tools.map((t) => t.function.name).join(", ")}`);

  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: `Task: ${goal}` },
  ];
  let page = "";
  // repeat_guard state: the current streak of identical calls with identical results, and of identical failures.
  let streakKey = "";
  let streak = 0;
  const failures = new Map<string, number>(); // consecutive failures of each identical call
  let withhold = false;
  let stalled = 0;

  const chat = async (withTools: boolean, extraSystem?: string): Promise<OpenAI.Chat.Completions.ChatCompletionMessage> => {
    const msgs = extraSystem ? [...messages, { role: "system" as const, content: extraSystem }] : messages;
    const req: ChatCompletionCreateParamsNonStreaming = { model, messages: msgs };
    if (withTools) req.tools = tools;
    if (seed !== undefined) req.seed = seed;
    if (temperature !== undefined) req.temperature = temperature;
    if (topP !== undefined) req.top_p = topP;
    if (maxTokens !== undefined) req.max_tokens = maxTokens;
    const res = await openai.chat.completions.create(req, { timeout: timeout() });
    const msg = res.choices[0]?.message;
    if (!msg) throw new Error("the model returned no choices");
    return msg;
  };

  // finish turns the model's closing content into the final answer (final_recovery when it is not JSON).
  const finish = async (content: string, reason: string, stepLimit: boolean): Promise<Final> => {
    const f = parseFinal(content);
    if (f) return f;
    if (guards.get("final_recovery") && Date.now() < deadline) {
      log(`final_recovery: ${reason}; one recovery call without tools`);
      messages.push({ role: "user", content: (stepLimit ? RECOVERY_STEP_LIMIT_PREFIX : "") + RECOVERY_PROMPT });
      try {
        const m = await chat(false);
        const r = parseFinal(m.content ?? "");
        if (r) return r;
        if ((m.content ?? "").trim()) content = m.content ?? "";
      } catch (e) {
        log(`final_recovery: the recovery call failed: ${(e as Error).message}`);
      }
    }
    return { ok: false, final: content, page, error: reason };
  };

  const run = async (): Promise<Final> => {
    for (let step = 1; step <= maxSteps; step++) {
      if (Date.now() >= deadline) return { ok: false, final: "", page, error: "the attempt deadline has passed" };
      const offer = !withhold;
      const msg = await chat(offer, withhold ? REPEAT_SYSTEM_SECTION : undefined);
      if (withhold) log("repeat_guard: tools withheld for this request");
      withhold = false;
      const calls = (msg.tool_calls ?? []).filter(
        (c): c is Extract<ChatCompletionMessageToolCall, { type: "function" }> => c.type === "function",
      );
      messages.push({
        role: "assistant",
        content: msg.content ?? null,
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      if (calls.length === 0 || !offer) {
        const content = msg.content ?? "";
        log(`step ${step}: the model answered (${content.length} chars)`);
        return finish(content, content.trim() ? "the model's last reply is not the final JSON object" : "the model's last reply is empty", false);
      }
      let failed = false;
      let acted = false;
      for (const c of calls) {
        const name = c.function.name;
        let args: Record<string, unknown> = {};
        let text: string;
        let isError = false;
        try {
          args = c.function.arguments ? JSON.parse(c.function.arguments) : {};
        } catch (e) {
          text = `### Error\nthe arguments of ${name} are not valid JSON: ${(e as Error).message}`;
          isError = true;
          messages.push({ role: "tool", tool_call_id: c.id, content: text });
          failed = true;
          continue;
        }
        const key = name + " " + canonical(args);
        const failedBefore = failures.get(key) ?? 0;
        if (guards.get("repeat_guard") && failedBefore >= FAILED_REPEAT_LIMIT) {
          text = `### Error\nNot run: this identical call failed ${failedBefore} times in a row. Do something different.`;
          log(`step ${step}: repeat_guard: ${name} not run again (failed ${failedBefore} times)`);
          messages.push({ role: "tool", tool_call_id: c.id, content: text });
          failed = true;
          continue;
        }
        try {
          const r = await mcp.callTool({ name, arguments: args }, undefined, { timeout: timeout() });
          const content = (r.content ?? []) as Array<{ type: string; text?: string }>;
          text = content.filter((p) => p.type === "text").map((p) => p.text ?? "").join("\n");
          isError = r.isError === true;
        } catch (e) {
          // A protocol error (an unknown tool, bad request): the model reads it as a failed call.
          text = `### Error\n${(e as Error).message}`;
          isError = true;
        }
        log(`step ${step}: ${name} ${canonical(args)} -> ${isError ? "error" : "ok"} (${text.length} chars)`);
        page = lastPageURL(text) ?? page;
        if (isError) {
          failed = true;
          failures.set(key, failedBefore + 1);
        } else {
          failures.delete(key);
          acted = acted || isAction(name);
        }
        if (guards.get("repeat_guard")) {
          const rk = key + "\n" + text;
          streak = rk === streakKey ? streak + 1 : 1;
          streakKey = rk;
          if (streak >= REPEAT_NOTE_AT) {
            text +=
              `\n### Repeated call\nThis call repeats the previous ones (${streak} in a row) and shows nothing new. ` +
              "If you already have the answer, reply now with the final JSON object; otherwise do something different.";
            log(`step ${step}: repeat_guard: note (streak ${streak})`);
          }
          if (streak >= REPEAT_WITHHOLD_AT) withhold = true;
        }
        messages.push({ role: "tool", tool_call_id: c.id, content: text });
      }
      // The stall rule (DESIGN.md "Iteration and stall"): a failed call and no successful action → stalled; a
      // successful action resets it; successful reads only leave it as it is.
      if (acted) stalled = 0;
      else if (failed) stalled++;
      if (stalled >= STALL_LIMIT) {
        log(`stall: ${stalled} iterations with a failed call and no successful action`);
        return { ok: false, final: "", page, error: "no further browser progress" };
      }
    }
    log(`step limit ${maxSteps} reached`);
    return finish("", "max_iterations_reached", true);
  };

  try {
    const f = await run();
    process.stdout.write(JSON.stringify(f) + "\n");
    return 0;
  } finally {
    await mcp.close().catch(() => {});
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    log(`fatal: ${e instanceof Fatal ? e.message : (e as Error).stack ?? String(e)}`);
    process.exit(1);
  },
);
