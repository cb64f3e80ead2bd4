// The page of package qwen3/viz: a chat (or a completion) whose every decode step is drawn as the
// server sends it. No library, no build step: the browser runs this file as it is.
//
// The server streams a reply as server-sent events over one POST (api/generate): "prompt" (the
// prompt's tokens, given, not drawn), then per decode step a "step" (an Event, documented in
// event.go) and the reply's "text" pieces, and last "done" or "error". This script only draws
// what the events say: every probability on the page comes from the server, which computes it with
// chapter 09's functions on the engine's logits.
"use strict";

const $ = (id) => document.getElementById(id);
const settingNames = ["temperature", "top_k", "top_p", "min_p", "seed", "max_tokens"];

const state = {
  info: null,
  messages: [],     // the chat so far: {role, content}
  replies: [],      // {prompt: [{id, token}], steps: [Event], text: "", el, textEl, finish}
  current: -1,      // the reply whose steps are shown
  selected: -1,     // the step shown
  follow: true,     // show each new step as it comes
  running: null,    // {controller, reply}
  last: null,       // the last request sent: {mode, text, before}, to run again
  rerunAfterStop: false,
  runs: 0,
  replayTimer: null,
};

// ---- formatting -------------------------------------------------------------------------------

function pct(x) {
  if (x === 0) return "0%";
  const v = x * 100;
  if (v >= 99.95 && x < 1) return v.toFixed(3) + "%";
  if (v >= 10) return v.toFixed(1) + "%";
  if (v >= 0.1) return v.toFixed(2) + "%";
  return v.toPrecision(2) + "%";
}
const int = (n) => n.toLocaleString("en-US");

// tokenNode shows a token's text with its whitespace made visible (␣ space, ↵ newline, ⇥ tab).
function tokenNode(text) {
  const span = document.createElement("span");
  for (const part of text.split(/( |\n|\t)/)) {
    if (part === "") continue;
    const mark = { " ": "␣", "\n": "↵", "\t": "⇥" }[part];
    if (mark) {
      const ws = document.createElement("span");
      ws.className = "ws";
      ws.textContent = mark;
      span.append(ws);
    } else {
      span.append(part);
    }
  }
  return span;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- settings ---------------------------------------------------------------------------------

function fillSettings(s, maxTokens) {
  $("temperature").value = s.temperature;
  $("top_k").value = s.top_k;
  $("top_p").value = s.top_p;
  $("min_p").value = s.min_p;
  $("seed").value = s.seed;
  if (maxTokens !== undefined) $("max_tokens").value = maxTokens;
}

// readSettings returns the settings of the form, or throws an Error naming the bad one. The server
// checks them again with chapter 09's Validate.
function readSettings() {
  const num = (name) => {
    const raw = $(name).value.trim();
    const v = Number(raw);
    if (raw === "" || !Number.isFinite(v)) throw new Error(`${name.replace("_", "-")}: "${raw}" is not a number`);
    return v;
  };
  const s = {
    temperature: num("temperature"), top_k: num("top_k"), top_p: num("top_p"),
    min_p: num("min_p"), seed: num("seed"),
  };
  const maxTokens = num("max_tokens");
  if (s.temperature < 0) throw new Error("temperature must be >= 0 (0 is greedy)");
  if (!Number.isInteger(s.top_k) || s.top_k < 0) throw new Error("top-k must be a whole number >= 0 (0 is off)");
  if (!(s.top_p > 0 && s.top_p <= 1)) throw new Error("top-p must be in (0, 1] (1 is off)");
  if (!(s.min_p >= 0 && s.min_p <= 1)) throw new Error("min-p must be in [0, 1] (0 is off)");
  if (!Number.isSafeInteger(s.seed) || s.seed < 0) throw new Error("the seed must be a whole number >= 0");
  const most = state.info ? state.info.max_allowed : 4096;
  if (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > most) throw new Error(`max tokens must be in 1..${most}`);
  return { settings: s, maxTokens };
}

function onSettingChange(ev) {
  if (ev.target.id === "mode") {
    $("think-label").hidden = $("mode").value !== "chat";
    return;
  }
  try {
    readSettings();
    $("settings-error").textContent = "";
  } catch (e) {
    $("settings-error").textContent = e.message;
    return;
  }
  rerun();
}

// ---- talking to the server --------------------------------------------------------------------

function setStatus(text, st) {
  const s = $("status");
  s.textContent = text;
  s.dataset.state = st;
}

function send(text) {
  let read;
  try {
    read = readSettings();
  } catch (e) {
    $("settings-error").textContent = e.message;
    return;
  }
  const mode = $("mode").value;
  const req = { mode, settings: read.settings, max_tokens: read.maxTokens };
  const before = state.messages.slice();
  if (mode === "chat") {
    req.messages = before.concat([{ role: "user", content: text }]);
    req.think = $("think").checked;
  } else {
    req.prompt = text;
  }
  state.last = { mode, text, before };
  start(req, text);
}

// rerun sends the last message again with the settings of the form, in place of its reply.
function rerun() {
  if (!state.last) return;
  if (state.running) {
    state.rerunAfterStop = true;
    state.running.controller.abort();
    return;
  }
  const last = state.last;
  const r = state.replies.pop();
  if (r) r.el.remove();
  state.messages = last.before.slice();
  $("mode").value = last.mode;
  send(last.text);
}

async function start(req, text) {
  stopReplay();
  const reply = { prompt: [], steps: [], text: "", finish: "" };
  drawReplyShell(reply, req.mode, text);
  state.replies.push(reply);
  state.current = state.replies.length - 1;
  state.selected = -1;
  state.follow = true;
  $("follow").classList.add("on");
  const controller = new AbortController();
  state.running = { controller, reply };
  $("stop").disabled = false;
  setStatus("prefilling the prompt…", "running");
  drawTimeline();
  let outcome = "done", message = "";
  try {
    const res = await fetch("api/generate", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(req), signal: controller.signal,
    });
    if (!res.ok) {
      let m = res.status + " " + res.statusText;
      try { m = (await res.json()).error || m; } catch (_) { /* not JSON */ }
      throw new Error(m);
    }
    await readEvents(res.body, reply);
    if (reply.error) { outcome = "error"; message = reply.error; }
  } catch (e) {
    if (e.name === "AbortError") {
      outcome = "stopped";
    } else {
      outcome = "error";
      message = e.message;
    }
  }
  state.running = null;
  $("stop").disabled = true;
  if (req.mode === "chat" && reply.steps.length > 0) {
    state.messages = req.messages.concat([{ role: "assistant", content: reply.text }]);
  }
  const n = reply.steps.filter((e) => !e.stop).length;
  state.runs++;
  $("status").dataset.run = String(state.runs);
  if (outcome === "done") {
    const d = reply.done || {};
    setStatus(`${n} tokens drawn in ${reply.steps.length} steps; ended: ${d.finish || "?"}` +
      (d.decode_tok_s ? `; ${d.decode_tok_s.toFixed(1)} tok/s with the page's events` : ""), "done");
  } else if (outcome === "stopped") {
    setStatus(`stopped after ${n} tokens`, "stopped");
  } else {
    setStatus("error: " + message, "error");
  }
  drawTimeline();
  drawSelected();
  if (state.rerunAfterStop) {
    state.rerunAfterStop = false;
    rerun();
  }
}

// readEvents reads a stream of server-sent events ("event: NAME\ndata: JSON\n\n").
async function readEvents(body, reply) {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const chunk = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let name = "message", data = "";
      for (const line of chunk.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      onEvent(reply, name, JSON.parse(data));
    }
  }
}

function onEvent(reply, name, data) {
  switch (name) {
    case "prompt":
      reply.prompt = data.tokens;
      drawPrompt(reply);
      setStatus(`prompt: ${data.tokens.length} tokens read in one pass; drawing tokens…`, "running");
      break;
    case "step":
      reply.steps.push(data);
      drawToken(reply, data);
      if (state.follow && state.replies[state.current] === reply) state.selected = reply.steps.length - 1;
      scheduleDraw();
      break;
    case "text":
      reply.text += data.text;
      break;
    case "done":
      reply.done = data;
      reply.finish = data.finish;
      break;
    case "error":
      reply.error = data.error;
      break;
  }
}

// ---- the transcript ---------------------------------------------------------------------------

function drawReplyShell(reply, mode, text) {
  const box = el("div", "turn");
  if (mode === "chat") {
    const u = el("div", "msg user");
    u.append(el("span", "who", "you"), el("div", "text", text));
    box.append(u);
  }
  const a = el("div", "msg assistant");
  a.append(el("span", "who", mode === "chat" ? "model" : "completion"));
  const details = el("details", "prompt-tokens");
  details.append(el("summary", "", "prompt: waiting…"));
  a.append(details);
  const t = el("div", "text");
  if (mode === "complete") {
    const given = el("span", "given-text");
    given.style.color = "var(--muted)";
    given.textContent = text;
    t.append(given);
  }
  a.append(t);
  box.append(a);
  $("transcript").append(box);
  reply.el = box;
  reply.details = details;
  reply.textEl = t;
  $("transcript").scrollTop = $("transcript").scrollHeight;
}

function drawPrompt(reply) {
  const d = reply.details;
  d.querySelector("summary").textContent =
    `prompt: ${reply.prompt.length} tokens, given, not drawn (prefill reads them in one pass)`;
  const chips = el("div", "chips");
  for (const t of reply.prompt) {
    const c = el("span", "chip given");
    c.title = `id ${t.id}`;
    c.append(tokenNode(t.token));
    chips.append(c);
  }
  d.append(chips);
}

function drawToken(reply, e) {
  const span = el("span", "tok" + (e.stop ? " stop" : ""));
  span.textContent = e.stop ? ` ⏹${e.token}` : e.token;
  span.dataset.step = e.step;
  span.title = `step ${e.step + 1}: drawn with ${pct(candidateOf(e, e.id).q)}, nucleus ${e.kept}`;
  // Shade by how surprising the draw was: one hue, darker for less likely (readable without colour).
  const q = candidateOf(e, e.id).q;
  const a = Math.min(0.55, Math.max(0, -Math.log2(q)) / 8);
  span.style.background = `rgba(0, 114, 178, ${a.toFixed(3)})`;
  if (a > 0.35) span.style.color = "#fff";
  const idx = state.replies.indexOf(reply);
  span.addEventListener("click", () => select(idx, e.step));
  reply.textEl.append(span);
  if (state.follow) $("transcript").scrollTop = $("transcript").scrollHeight;
}

function candidateOf(e, id) {
  return e.candidates.find((c) => c.id === id);
}

// ---- selecting a step -------------------------------------------------------------------------

function select(replyIndex, step) {
  stopReplay();
  state.current = replyIndex;
  state.selected = step;
  const r = state.replies[replyIndex];
  state.follow = state.running !== null && state.running.reply === r && step === r.steps.length - 1;
  $("follow").classList.toggle("on", state.follow);
  drawTimeline();
  drawSelected();
}

function move(delta) {
  const r = state.replies[state.current];
  if (!r || r.steps.length === 0) return;
  const s = Math.min(r.steps.length - 1, Math.max(0, state.selected + delta));
  select(state.current, s);
}

let drawPending = false;
function scheduleDraw() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    drawTimeline();
    drawSelected();
  });
}

// ---- the timeline -----------------------------------------------------------------------------

function drawTimeline() {
  const tl = $("timeline");
  const r = state.replies[state.current];
  const steps = r ? r.steps : [];
  while (tl.children.length > steps.length) tl.lastChild.remove();
  const most = Math.max(2, ...steps.map((e) => e.kept));
  for (let i = 0; i < steps.length; i++) {
    let b = tl.children[i];
    if (!b) {
      b = el("button");
      b.type = "button";
      b.dataset.step = i;
      b.addEventListener("click", () => select(state.current, i));
      tl.append(b);
    }
    const e = steps[i];
    // Height: the nucleus's size, on a log scale (1 token is the shortest bar).
    b.style.height = (4 + 38 * Math.log(1 + e.kept) / Math.log(1 + most)).toFixed(1) + "px";
    b.className = (i === state.selected ? "sel " : "") + (e.stop ? "stop" : "");
    b.title = `step ${i + 1}: "${e.token}", nucleus ${e.kept} tokens`;
    b.setAttribute("aria-label", b.title);
  }
  const sel = tl.children[state.selected];
  if (sel) sel.scrollIntoView({ block: "nearest", inline: "nearest" });
  $("prev").disabled = !(state.selected > 0);
  $("next").disabled = !(r && state.selected < steps.length - 1);
  document.querySelectorAll(".tok.sel").forEach((t) => t.classList.remove("sel"));
  if (r) {
    const t = r.textEl.querySelector(`.tok[data-step="${state.selected}"]`);
    if (t) t.classList.add("sel");
  }
}

// ---- the step ---------------------------------------------------------------------------------

function drawSelected() {
  const r = state.replies[state.current];
  const e = r && r.steps[state.selected];
  const view = $("step-view");
  if (!e) {
    view.hidden = true;
    $("step-empty").hidden = false;
    $("step").dataset.step = "-1";
    return;
  }
  view.hidden = false;
  $("step-empty").hidden = true;
  const box = $("step");
  box.dataset.step = e.step;
  box.dataset.kept = e.kept;
  box.dataset.drawn = e.id;
  box.dataset.topP = e.settings.top_p;
  drawTitle(e, r.steps.length);
  drawMetrics(e);
  drawChart(e);
  const m = $("meter");
  m.querySelector(".fill").style.width = "0";
  m.querySelector(".mark").style.left = (Math.min(1, e.settings.top_p) * 100) + "%";
  m.querySelector(".mark").hidden = !(e.settings.top_p < 1);
  $("replay-text").textContent = e.settings.temperature === 0
    ? "Temperature 0 is greedy: the most likely token, nothing drawn."
    : `Replay: the candidates in order, the mass top-p sums, and each warper's cut.`;
}

function drawTitle(e, n) {
  const h = $("step-title");
  h.textContent = "";
  const tok = el("span", "drawn-tok");
  tok.append(tokenNode(e.token));
  const c = candidateOf(e, e.id);
  h.append(`Step ${e.step + 1} of ${n}: drew `, tok,
    e.stop ? " (a stop token: the reply ends here)" : "",
    ` rank ${e.rank}, drawn with ${pct(c.q)}`);
}

function drawMetrics(e) {
  const s = e.settings;
  const dl = $("metrics");
  dl.textContent = "";
  const add = (term, main, small) => {
    const d = el("div");
    d.append(el("dt", "", term));
    const dd = el("dd", "", main);
    if (small) {
      dd.append(el("br"), el("small", "", small));
    }
    d.append(dd);
    dl.append(d);
  };
  add("nucleus (kept)", `${int(e.kept)} token${e.kept === 1 ? "" : "s"}`,
    `${pct(e.kept_mass_t)} of the mass after temperature, ${pct(e.kept_mass)} before`);
  add("tail (cut)", `${int(e.tail)} of ${int(e.vocab)}`,
    `${pct(e.tail_mass_t)} of the mass after temperature, ${pct(e.tail_mass)} before`);
  if (s.temperature === 0) {
    add("cut by", "greedy (temperature 0)", "only the most likely token stays");
  } else {
    add("cut by", `top-k ${int(e.cut_top_k)} · top-p ${int(e.cut_top_p)} · min-p ${int(e.cut_min_p)}`,
      `T ${s.temperature}, top-k ${s.top_k || "off"}, top-p ${s.top_p === 1 ? "off" : s.top_p}, min-p ${s.min_p || "off"}`);
  }
  add("entropy", `${e.entropy.toFixed(2)} bits`,
    `after temperature ${e.entropy_t.toFixed(2)}, drawn from ${e.entropy_kept.toFixed(2)}`);
  add("time", `${e.time_ms.toFixed(2)} ms`, (e.step === 0
    ? "the pick (the prompt's prefill made these logits)" : "forward pass and pick") + `; position ${int(e.position)}`);
}

function drawChart(e) {
  const chart = $("chart");
  chart.textContent = "";
  chart.dataset.step = e.step;
  const rows = e.candidates;
  let most = 0;
  for (const c of rows) most = Math.max(most, c.p, c.p_t, c.q);
  if (e.rest.count > 0) most = Math.max(most, e.rest.q);
  const w = (x) => (most > 0 ? (100 * x / most).toFixed(2) : "0") + "%";
  const head = el("div", "row head");
  head.append(el("div", "rank", "#"), el("div", "token", "token"), el("div", "bars", ""),
    el("div", "nums", "model · after T · drawn from"));
  for (const c of head.children) c.style.fontWeight = "600";
  chart.append(head);
  for (const c of rows) {
    const row = el("div", "row" + (c.cut ? " cut" : " kept") + (c.drawn ? " drawn" : ""));
    row.setAttribute("role", "row");
    row.dataset.id = c.id;
    row.dataset.rank = c.rank;
    row.dataset.q = String(c.q);
    row.dataset.pk = String(c.p_k);
    row.dataset.kept = c.cut ? "0" : "1";
    row.dataset.cut = c.cut;
    row.dataset.drawn = c.drawn ? "1" : "0";
    const tok = el("div", "token");
    tok.append(tokenNode(c.token));
    tok.title = `id ${c.id}, logit ${c.logit.toFixed(3)}`;
    const bars = el("div", "bars");
    for (const [cls, v] of [["p", c.p], ["t", c.p_t], ["q", c.q]]) {
      const b = el("div", "bar " + cls);
      b.style.width = w(v);
      if (cls === "q" && v === 0) b.style.visibility = "hidden";
      bars.append(b);
    }
    const nums = el("div", "nums");
    nums.append(el("span", "", pct(c.p)), el("span", "", pct(c.p_t)));
    if (c.cut) {
      nums.append(el("i", "tag cut-" + c.cut, c.cut));
    } else {
      nums.append(el("b", "", pct(c.q)));
    }
    row.append(el("div", "rank", String(c.rank)), tok, bars, nums);
    chart.append(row);
  }
  if (e.rest.count > 0) {
    const row = el("div", "row more kept");
    row.dataset.q = String(e.rest.q);
    row.dataset.kept = "1";
    row.dataset.rest = String(e.rest.count);
    const bars = el("div", "bars");
    const b = el("div", "bar q");
    b.style.width = w(e.rest.q);
    bars.append(b);
    const nums = el("div", "nums");
    nums.append(el("span", "", pct(e.rest.p)), el("span", "", ""), el("b", "", pct(e.rest.q)));
    row.append(el("div", "rank", "…"), el("div", "token", `${int(e.rest.count)} more kept`), bars, nums);
    chart.append(row);
  }
  chart.append(el("div", "axis", `bar length: 0 to ${pct(most)}`));
}

// ---- the replay: the nucleus filling token by token --------------------------------------------

function stopReplay() {
  if (state.replayTimer) {
    clearInterval(state.replayTimer);
    state.replayTimer = null;
  }
  document.querySelectorAll(".row.dim, .row.lit").forEach((r) => r.classList.remove("dim", "lit"));
  $("replay").textContent = "▶ Replay the cut";
}

// replay walks the candidates from the most likely down, as top-p does: the meter fills with the
// mass after temperature and top-k (what top-p sums) of each token that stays, up to top-p's
// mark. Each token's verdict is the server's (the warpers that ran); the replay only shows it.
function replay() {
  if (state.replayTimer) {
    stopReplay();
    return;
  }
  const r = state.replies[state.current];
  const e = r && r.steps[state.selected];
  if (!e) return;
  const rows = [...document.querySelectorAll("#chart .row:not(.head):not(.more)")]
    .filter((row, i) => Number(row.dataset.rank) === i + 1);
  rows.forEach((row) => row.classList.add("dim"));
  const fill = $("meter").querySelector(".fill");
  fill.style.width = "0";
  const text = $("replay-text");
  const s = e.settings;
  let i = 0, above = 0, filled = 0;
  $("replay").textContent = "■ Stop";
  const tick = () => {
    if (i > 0) rows[i - 1].classList.remove("lit");
    if (i >= rows.length) {
      stopReplay();
      text.textContent = `Kept ${e.kept} of ${int(e.vocab)} tokens; their probabilities, renormalised to sum to 1, ` +
        `are the ones the token was drawn from (dark blue bars). Drawn: "${e.token}".`;
      return;
    }
    const row = rows[i];
    row.classList.remove("dim");
    row.classList.add("lit");
    const c = e.candidates[i];
    const tok = JSON.stringify(c.token);
    let why;
    switch (c.cut) {
      case "greedy": why = "temperature 0 keeps only the most likely token"; break;
      case "top-k": why = `cut by top-k: not among the ${s.top_k} largest logits`; break;
      case "top-p": why = `cut by top-p: the tokens above it already hold ${pct(above)}, ≥ top-p ${s.top_p}`; break;
      case "min-p": why = `cut by min-p: below ${s.min_p} × the most likely token's probability`; break;
      default: why = s.top_p < 1
        ? `kept: the tokens above it hold ${pct(above)}, < top-p ${s.top_p}` : "kept";
    }
    if (c.cut === "" || c.cut === "min-p") filled += c.p_k;
    above += c.p_k;
    fill.style.width = (Math.min(1, filled) * 100).toFixed(2) + "%";
    text.textContent = `#${c.rank} ${tok}: ${pct(c.p_k)} after temperature and top-k. ${why}.`;
    i++;
  };
  tick();
  state.replayTimer = setInterval(tick, 450);
}

// ---- start ------------------------------------------------------------------------------------

async function init() {
  $("send").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("input").value;
    if (text.trim() === "" || state.running) return;
    $("input").value = "";
    send(text);
  });
  $("input").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) {
      ev.preventDefault();
      $("send").requestSubmit();
    }
  });
  $("stop").addEventListener("click", () => state.running && state.running.controller.abort());
  $("clear").addEventListener("click", () => {
    if (state.running) state.running.controller.abort();
    stopReplay();
    state.messages = [];
    state.replies = [];
    state.current = state.selected = -1;
    state.last = null;
    $("transcript").textContent = "";
    drawTimeline();
    drawSelected();
    setStatus("New conversation.", "idle");
  });
  $("settings").addEventListener("change", onSettingChange);
  $("settings").addEventListener("submit", (ev) => ev.preventDefault());
  $("defaults").addEventListener("click", () => {
    fillSettings(state.info.default);
    $("settings-error").textContent = "";
    rerun();
  });
  $("prev").addEventListener("click", () => move(-1));
  $("next").addEventListener("click", () => move(1));
  $("follow").addEventListener("click", () => {
    const r = state.replies[state.current];
    if (r) select(state.current, r.steps.length - 1);
    state.follow = true;
    $("follow").classList.add("on");
  });
  $("replay").addEventListener("click", replay);
  document.addEventListener("keydown", (ev) => {
    if (ev.target.closest("input, textarea, select")) return;
    if (ev.key === "ArrowLeft") move(-1);
    if (ev.key === "ArrowRight") move(1);
  });

  try {
    const res = await fetch("api/info");
    state.info = await res.json();
  } catch (e) {
    setStatus("cannot reach the server: " + e.message, "error");
    return;
  }
  const info = state.info;
  $("model").textContent = `${info.name}: ${int(info.vocab)} tokens, context ${int(info.context)}`;
  if (info.note) {
    $("note").textContent = info.note;
    $("note").hidden = false;
  }
  fillSettings(info.settings, info.max_tokens);
  $("max_tokens").max = info.max_allowed;
  $("mode").value = info.mode;
  $("think").checked = info.thinking;
  $("think-label").hidden = info.mode !== "chat";
  $("input").placeholder = info.mode === "chat"
    ? "Type a message, Enter sends (Shift+Enter: a new line)"
    : "Type the start of a text (for the tiny model: Go code, e.g. func main() {), Enter sends";
  document.body.dataset.ready = "1";
}

init();
