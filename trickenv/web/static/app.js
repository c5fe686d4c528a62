// The page of `trickenv serve`. It draws what the server sends and sends every click back:
// no rule of any game is written here (the server says what is legal and why a move is not).
"use strict";

const $ = (id) => document.getElementById(id);
let INFO = null;          // /api/games
let REPLAY = null;        // the open replay: {id, deals, ...}
let FRAME = null;         // the frame shown

async function api(method, path, body) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try { data = await response.json(); } catch (e) { data = { error: `${response.status} ${response.statusText}` }; }
  if (!response.ok) throw new Error(data && data.error ? data.error : `${response.status}`);
  return data;
}

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k.startsWith("data-")) node.setAttribute(k, v); else node[k] = v;
  }
  if (text) node.textContent = text;
  return node;
}

function cardNode(card, tag = "span", who = null) {
  const node = el(tag, { class: `card suit-${card.suit}`, "data-card": String(card.card) });
  node.append(document.createTextNode(card.text));
  if (who !== null) node.append(el("span", { class: "who" }, who));
  return node;
}

function seatLabel(state, seat) {
  return state.you === seat ? "you" : `P${seat}`;
}

// ------------------------------------------------------------------ the play form
function choices(allowed) {
  // "3 | 4" or '"skat" | "natural"' become a list of choices; anything else is typed.
  const parts = allowed.split(" | ").map((x) => x.trim());
  if (parts.length < 2 || parts.some((x) => !/^(".*"|True|False|-?\d+|\(.*\))$/.test(x))) return null;
  return parts.map((x) => x.replace(/^"(.*)"$/, "$1"));
}

function renderOptions() {
  const game = $("game").value;
  const box = $("options");
  box.replaceChildren();
  for (const opt of INFO.games[game].options) {
    const shown = opt.value.replace(/^"(.*)"$/, "$1");
    const list = choices(opt.allowed);
    let input;
    if (list) {
      input = el("select", { id: `opt-${opt.name}`, name: opt.name });
      for (const c of list) input.append(el("option", { value: c }, c));
      if (!list.includes(shown)) input.append(el("option", { value: shown }, shown));
      input.value = shown;
    } else {
      input = el("input", { id: `opt-${opt.name}`, name: opt.name, type: "text", value: shown === "None" ? "" : shown });
    }
    input.dataset.initial = input.value;
    input.title = opt.comment;
    input.addEventListener("change", updateSeats);
    const label = el("label", {}, opt.name);
    label.title = opt.comment;
    label.append(input);
    box.append(label);
  }
}

function chosenOptions() {
  // Only the options changed on the form: the others keep the game's defaults.
  const out = {};
  for (const input of $("options").querySelectorAll("select, input")) {
    if (input.value !== input.dataset.initial) out[input.name] = input.value;
  }
  return out;
}

async function updateSeats() {
  const msg = $("message");
  let players;
  try {
    players = (await api("POST", "/api/spec", { game: $("game").value, options: chosenOptions() })).players;
    msg.textContent = "";
  } catch (e) {
    msg.textContent = e.message;
    return;
  }
  const seat = $("seat");
  const old = seat.value;
  seat.replaceChildren();
  for (let p = 0; p < players; p++) seat.append(el("option", { value: String(p) }, `P${p}`));
  seat.value = old && Number(old) < players ? old : "0";
  const box = $("opponents");
  const before = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  for (let k = 1; k < players; k++) {
    const sel = el("select", { id: `opponent-${k}`, name: `opponent-${k}` });
    for (const a of INFO.agents) sel.append(el("option", { value: a }, a));
    sel.value = before[k - 1] || "rules";
    const label = el("label", {}, k === 1 ? "Left of you" : `${k} seats on`);
    label.append(sel);
    box.append(label);
  }
}

async function startTable(event) {
  event.preventDefault();
  const opponents = [...$("opponents").querySelectorAll("select")].map((s) => s.value);
  const body = { game: $("game").value, options: chosenOptions(), seat: Number($("seat").value), opponents,
                 deals: Number($("deals").value || 1), seed: $("seed").value.trim() === "" ? null : $("seed").value.trim() };
  await busy(async () => {
    const state = await api("POST", "/api/play", body);
    $("table").hidden = false;
    $("message").textContent = "";
    renderTable(state);
  }, $("message"));
}

async function busy(fn, messageNode) {
  document.body.classList.add("busy");
  $("status").dataset.busy = "1";
  try {
    await fn();
  } catch (e) {
    messageNode.textContent = e.message;
  } finally {
    document.body.classList.remove("busy");
    delete $("status").dataset.busy;
  }
}

// ------------------------------------------------------------------ the table
function renderTable(state) {
  const trump = state.trump ? `trump ${state.trump.symbol} ${state.trump.name}` : "no trump";
  const deals = state.deals ? ` of ${state.deals}` : "";
  let turn;
  if (state.finished) turn = "the deals are over";
  else if (state.your_turn) turn = "your turn";
  else turn = `P${state.to_act} to act`;
  $("status").textContent = `${state.game} · deal ${state.deal}${deals} · dealer ${seatLabel(state, state.dealer)} · ` +
    `${trump} · trick ${Math.min(state.trick_no + 1, 99)} · ${turn}`;
  $("status").dataset.finished = state.finished ? "1" : "0";
  $("status").dataset.yourTurn = state.your_turn ? "1" : "0";
  $("facts").textContent = state.facts.join(" · ");

  const seats = $("seats");
  seats.replaceChildren();
  for (const s of state.seats) {
    const box = el("div", { class: "seat" + (s.seat === state.to_act ? " to-act" : "") + (s.seat === state.you ? " you" : ""),
                            id: `seat-${s.seat}` });
    box.append(el("div", {}, `P${s.seat} ${s.name}`));
    box.append(el("div", {}, `tricks ${s.tricks}` + (state.has_points ? ` · points ${s.points}` : "") +
                             (state.scores.length ? ` · total ${s.total >= 0 ? "+" : ""}${s.total}` : "")));
    seats.append(box);
  }
  drawTrick($("trick"), state.trick, state);
  drawTrick($("last-trick"), state.last_trick ? state.last_trick.cards : [], state);

  $("notes").textContent = (state.notes || []).join(" ");
  const hand = $("hand");
  hand.replaceChildren();
  for (const card of state.hand || []) {
    const button = cardNode(card, "button");
    button.type = "button";
    button.classList.add(card.legal ? "legal" : "illegal");
    button.addEventListener("click", () => move(card.card));
    hand.append(button);
  }
  const moves = $("moves");
  moves.replaceChildren();
  for (const m of state.moves || []) {
    const button = el("button", { type: "button", class: "move", "data-action": String(m.action) }, m.text);
    button.addEventListener("click", () => move(m.action));
    moves.append(button);
  }
  const log = $("log");
  log.replaceChildren();
  for (const line of state.log) log.append(el("li", { class: line.includes("TRUMP CHANGES") ? "trump-change" : "" }, line));
  log.scrollTop = log.scrollHeight;
  renderResults(state);
}

function drawTrick(node, cards, state) {
  node.replaceChildren();
  for (const c of cards) node.append(cardNode(c, "span", seatLabel(state, c.seat)));
}

function renderResults(state) {
  const box = $("results");
  box.replaceChildren();
  if (!state.scores.length) return;
  const table = el("table", { class: "scores", id: "scores" });
  const head = el("tr");
  head.append(el("th", {}, "deal"));
  for (const s of state.seats) head.append(el("th", {}, `P${s.seat} ${s.name}`));
  table.append(head);
  state.scores.forEach((row, k) => {
    const tr = el("tr");
    tr.append(el("td", {}, String(k + 1)));
    for (const x of row) tr.append(el("td", {}, (x >= 0 ? "+" : "") + x));
    table.append(tr);
  });
  box.append(el("h3", {}, state.finished ? "Final scores" : "Scores so far"), table);
}

async function move(action) {
  await busy(async () => {
    const state = await api("POST", "/api/play/move", { action });
    $("message").textContent = "";
    renderTable(state);
  }, $("message"));
}

// ------------------------------------------------------------------ replay
async function openRecord(event) {
  event.preventDefault();
  const msg = $("replay-message");
  const file = $("record-file").files[0];
  if (!file) { msg.textContent = "choose a record file first"; return; }
  let options = {};
  const text = $("replay-options").value.trim();
  if (text) {
    try { options = JSON.parse(text); } catch (e) { msg.textContent = `options must be JSON, e.g. {"num_players": 4}: ${e.message}`; return; }
  }
  try {
    const body = { file: await file.text(), options };
    if ($("replay-game").value) body.game = $("replay-game").value;
    REPLAY = await api("POST", "/api/replay", body);
    msg.textContent = "";
    const sel = $("replay-deal");
    sel.replaceChildren();
    for (const d of REPLAY.deals) sel.append(el("option", { value: String(d.index) }, d.label));
    $("replay").hidden = false;
    await showFrame(0, 0);
  } catch (e) {
    msg.textContent = e.message;
  }
}

async function showFrame(deal, step) {
  const msg = $("replay-message");
  try {
    FRAME = await api("GET", `/api/replay/${REPLAY.id}/${deal}/${step}`);
    msg.textContent = "";
  } catch (e) {
    msg.textContent = e.message;
    return;
  }
  const f = FRAME;
  const trump = f.trump ? `trump ${f.trump.symbol} ${f.trump.name}` : "no trump";
  $("step-label").textContent = `step ${f.step} of ${f.frames - 1}`;
  $("step-label").dataset.step = String(f.step);
  $("replay-status").textContent = `${REPLAY.game} · ${f.label} · dealer P${f.dealer} · ${trump} · trick ${Math.min(f.trick_no + 1, 99)}` +
    (f.finished ? " · deal over" : ` · P${f.to_act} to act`);
  $("replay-facts").textContent = f.facts.join(" · ");
  const change = $("replay-change");
  const said = f.lines.filter((x) => x.includes("TRUMP CHANGES"));
  change.textContent = f.trump_change ? (said[0] || "trump changes") : "";
  change.className = f.trump_change ? "changed" : "";
  drawTrick($("replay-trick"), f.trick, f);
  drawTrick($("replay-last-trick"), f.last_trick ? f.last_trick.cards : [], f);
  const hands = $("replay-hands");
  hands.replaceChildren();
  f.hands.forEach((cards, seat) => {
    const row = el("div", { class: "hand-row", id: `replay-hand-${seat}` });
    const s = f.seats[seat];
    row.append(el("span", { class: "name" }, `P${seat} ${s.name} · tricks ${s.tricks}` + (f.has_points ? ` · ${s.points} pts` : "")));
    const box = el("div", { class: "cards" });
    for (const c of cards) box.append(cardNode(c));
    row.append(box);
    hands.append(row);
  });
  const lines = $("replay-lines");
  lines.replaceChildren();
  for (const line of f.lines) lines.append(el("li", { class: line.includes("TRUMP CHANGES") ? "trump-change" : "" }, line));
}

function replayNav(kind) {
  if (!FRAME) return;
  const deal = FRAME.deal_index;
  const k = FRAME.step;
  const starts = FRAME.trick_starts;
  let target = k;
  if (kind === "first") target = 0;
  else if (kind === "last") target = FRAME.frames - 1;
  else if (kind === "prev") target = Math.max(0, k - 1);
  else if (kind === "next") target = Math.min(FRAME.frames - 1, k + 1);
  else if (kind === "prev-trick") target = Math.max(0, ...starts.filter((x) => x < k));
  else if (kind === "next-trick") { const later = starts.filter((x) => x > k); target = later.length ? later[0] : FRAME.frames - 1; }
  showFrame(deal, target);
}

// ------------------------------------------------------------------ start
function showTab(name) {
  $("play-panel").hidden = name !== "play";
  $("replay-panel").hidden = name !== "replay";
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-replay").classList.toggle("active", name === "replay");
}

async function init() {
  INFO = await api("GET", "/api/games");
  for (const game of Object.keys(INFO.games)) {
    $("game").append(el("option", { value: game }, game));
    $("replay-game").append(el("option", { value: game }, game));
  }
  $("game").addEventListener("change", () => { renderOptions(); updateSeats(); });
  $("play-form").addEventListener("submit", startTable);
  $("replay-form").addEventListener("submit", openRecord);
  $("replay-deal").addEventListener("change", () => showFrame(Number($("replay-deal").value), 0));
  for (const kind of ["first", "prev-trick", "prev", "next", "next-trick", "last"]) {
    $(kind).addEventListener("click", () => replayNav(kind));
  }
  $("tab-play").addEventListener("click", () => showTab("play"));
  $("tab-replay").addEventListener("click", () => showTab("replay"));
  renderOptions();
  await updateSeats();
  try {  // a reloaded page shows the session's table again
    const state = await api("GET", "/api/play");
    $("table").hidden = false;
    renderTable(state);
  } catch (e) { /* no table yet */ }
  document.body.dataset.ready = "1";
}

init().catch((e) => { $("message").textContent = e.message; });
