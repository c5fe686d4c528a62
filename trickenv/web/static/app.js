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

// ------------------------------------------------------------------ the start screen
let GAME = null;          // the chosen game's id
let FITTING = [];         // the agents that can play the chosen variant (/api/spec)
let LAST = null;          // the last state drawn (to see trump change)
let WATCH_TIMER = null;   // watching: the timer that asks for the next move

function chooseGame(game) {
  GAME = game;
  for (const b of $("games").querySelectorAll(".game-card")) {
    const chosen = b.dataset.game === game;
    b.classList.toggle("chosen", chosen);
    b.setAttribute("aria-checked", chosen ? "true" : "false");
  }
  renderOptions();
  updateSeats();
}

function renderGames() {
  const box = $("games");
  box.replaceChildren();
  for (const [game, info] of Object.entries(INFO.games)) {
    const b = el("button", { type: "button", class: "game-card", "data-game": game, role: "radio" });
    b.append(el("h3", {}, info.title), el("p", {}, info.tagline));
    b.addEventListener("click", () => chooseGame(game));
    box.append(b);
  }
}

function renderOptions() {
  // Each option by its label, its values in words where the game gives them, its meaning below.
  const box = $("options");
  box.replaceChildren();
  for (const opt of INFO.games[GAME].options) {
    if (opt.match) continue;  // a match's options: the page plays "Deals" deals with running totals instead
    const shown = opt.value.replace(/^"(.*)"$/, "$1");
    let input;
    if (opt.choices.length) {
      input = el("select", { id: `opt-${opt.name}`, name: opt.name });
      for (const c of opt.choices) input.append(el("option", { value: c.value.replace(/^"(.*)"$/, "$1") }, c.text));
      input.value = shown;
    } else {
      input = el("input", { id: `opt-${opt.name}`, name: opt.name, type: "text", value: shown === "None" ? "" : shown });
      input.placeholder = opt.default;
    }
    input.dataset.initial = input.value;
    input.addEventListener("change", updateSeats);
    const label = el("label", {}, opt.label);
    label.append(input);
    if (!opt.choices.length) label.append(el("span", { class: "what" }, opt.comment));  // choices speak for themselves
    else input.title = opt.comment;
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

function watching() { return $("mode-watch").checked; }

function seatWord(k, players) {
  // Where seat k of the others sits, seen from the person's seat.
  if (k === 1) return "Left of you";
  if (k === players - 1) return "Right of you";
  return "Across from you";
}

let SEATS_ASKED = 0;       // the latest /api/spec asked (an older answer is dropped)

async function updateSeats() {
  const msg = $("form-message");
  const asked = ++SEATS_ASKED;
  document.body.dataset.seats = "pending";
  let players;
  try {
    const spec = await api("POST", "/api/spec", { game: GAME, options: chosenOptions() });
    if (asked !== SEATS_ASKED) return;
    players = spec.players;
    FITTING = spec.agents;
    msg.textContent = "";
  } catch (e) {
    if (asked === SEATS_ASKED) { msg.textContent = e.message; document.body.dataset.seats = "ready"; }
    return;
  }
  const seat = $("seat");
  const old = seat.value;
  seat.replaceChildren();
  for (let p = 0; p < players; p++) seat.append(el("option", { value: String(p) }, `P${p}`));
  seat.value = old && Number(old) < players ? old : "0";
  $("seat-label").hidden = watching();
  const box = $("opponents");
  const before = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  const count = watching() ? players : players - 1;
  const defaults = ["search", "model"].filter((a) => FITTING.includes(a));
  for (let k = 1; k <= count; k++) {
    const sel = el("select", { id: `opponent-${k}`, name: `opponent-${k}` });
    for (const a of FITTING) sel.append(el("option", { value: a }, a));
    const wanted = before[k - 1] && FITTING.includes(before[k - 1]) ? before[k - 1] : defaults[(k - 1) % Math.max(1, defaults.length)];
    sel.value = wanted || "rules";
    const label = el("label", {}, watching() ? `P${k - 1}` : seatWord(k, players));
    label.append(sel);
    box.append(label);
  }
  document.body.dataset.seats = "ready";
}

async function startTable(event) {
  event.preventDefault();
  const agents = [...$("opponents").querySelectorAll("select")].map((s) => s.value);
  const body = { game: GAME, options: chosenOptions(), deals: Number($("deals").value || 1),
                 seed: $("seed").value.trim() === "" ? null : $("seed").value.trim() };
  if (watching()) { body.watch = true; body.agents = agents; } else { body.seat = Number($("seat").value); body.opponents = agents; }
  await busy(async () => {
    const state = await api("POST", "/api/play", body);
    showTable(state);
  }, $("form-message"));
}

function showTable(state) {
  $("play-form").hidden = true;
  $("table").hidden = false;
  $("message").textContent = "";
  LAST = null;
  $("review").hidden = true;
  renderTable(state);
  if (state.watch) watchOn(); else watchOff();
}

function newTable() {
  watchOff();
  $("table").hidden = true;
  $("play-form").hidden = false;
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
function position(state, seat) {
  // Seats around the table, the person (or P0 when watching) at the bottom, the others clockwise.
  const n = state.seats.length;
  const me = state.you === null ? 0 : state.you;
  const r = (seat - me + n) % n;
  if (r === 0) return "bottom";
  if (n === 3) return r === 1 ? "left" : "right";
  return ["bottom", "left", "top", "right"][r];
}

function cardFace(card, tag = "span") {
  const node = el(tag, { class: `card suit-${card.suit}`, "data-card": String(card.card) });
  const pip = card.text.slice(-1);
  node.append(el("span", { class: "rank" }, card.text.slice(0, -1)), el("span", { class: "pip" }, pip));
  node.title = card.text;
  return node;
}

function renderTable(state) {
  const info = INFO.games[state.game];
  const deals = state.deals ? ` of ${state.deals}` : "";
  let turn;
  if (state.finished) turn = "the deals are over";
  else if (state.your_turn) turn = "your turn";
  else turn = `${state.seats[state.to_act].name} (P${state.to_act}) to play`;
  $("status").textContent = `${info.title} · deal ${state.deal}${deals} · dealer P${state.dealer} · ` +
    `trick ${Math.min(state.trick_no + 1, 99)} · ${turn}`;
  $("status").dataset.game = state.game;
  $("status").dataset.finished = state.finished ? "1" : "0";
  $("status").dataset.yourTurn = state.your_turn ? "1" : "0";

  // trump: a badge that changes visibly, with the moment named
  const badge = $("trump-badge");
  const trump = state.trump ? state.trump.suit : -1;
  badge.replaceChildren();
  if (state.trump) {
    badge.append(el("span", { class: `sym suit-${state.trump.suit}` }, state.trump.symbol), document.createTextNode(` ${state.trump.name} trump`));
  } else badge.append(document.createTextNode("no trump"));
  badge.dataset.suit = String(trump);
  const changed = LAST && LAST.deal === state.deal && LAST.trump && state.trump && LAST.trump.suit !== trump;
  const said = state.log.filter((x) => x.includes("TRUMP CHANGES"));
  if (changed) {
    badge.classList.remove("changed");
    void badge.offsetWidth;  // restart the animation
    badge.classList.add("changed");
    $("change-banner").textContent = said.length ? said[said.length - 1].replace(/\*+/g, "").trim() : "trump changes";
  } else if (LAST && LAST.deal !== state.deal) {
    badge.classList.remove("changed");
    $("change-banner").textContent = "";
  }

  // the seats around the felt
  const felt = $("felt");
  for (const old of felt.querySelectorAll(".seat")) old.remove();
  for (const s of state.seats) {
    const box = el("div", { class: `seat pos-${position(state, s.seat)}` + (s.seat === state.to_act ? " to-act" : "") +
                                   (s.seat === state.you ? " you" : ""), id: `seat-${s.seat}` });
    box.append(el("div", { class: "name" }, `P${s.seat} ${s.name === "you" ? "" : s.name}`.trim()));
    const badges = el("div", { class: "badges" });
    for (const b of s.badges || []) badges.append(el("span", { class: "fact" }, b));
    badges.append(el("span", {}, `tricks ${s.tricks}`));
    if (state.has_points) badges.append(el("span", {}, `${s.points} points`));
    if (s.seat === state.dealer) badges.append(el("span", {}, "dealer"));
    if (state.scores.length) badges.append(el("span", {}, `total ${s.total >= 0 ? "+" : ""}${s.total}`));
    box.append(badges);
    if (state.hands && state.watch) {
      const cards = el("div", { class: "cards" });
      for (const c of state.hands[s.seat]) cards.append(cardFace(c));
      box.append(cards);
    }
    felt.append(box);
  }
  // the trick, each card before the seat that played it
  const trick = $("trick");
  trick.replaceChildren();
  for (const c of state.trick) {
    const node = cardFace(c);
    node.classList.add(`slot-${position(state, c.seat)}`);
    node.append(el("span", { class: "who" }, c.seat === state.you ? "you" : `P${c.seat}`));
    trick.append(node);
  }
  const facts = $("facts");
  facts.replaceChildren();
  for (const f of state.facts) facts.append(el("span", {}, f));
  $("notes").textContent = (state.notes || []).join(" ");

  const hand = $("hand");
  hand.replaceChildren();
  for (const card of state.hand || []) {
    const button = cardFace(card, "button");
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
  $("hint-button").hidden = state.watch || state.finished;
  $("hint-button").disabled = !state.your_turn;
  $("hint-note").hidden = true;
  $("pause-button").hidden = !state.watch || state.finished;
  $("review-button").hidden = !state.scores.length;
  $("review-seat-label").hidden = !state.scores.length;
  const seatBox = $("review-seat");
  if (seatBox.options.length !== state.seats.length) {
    seatBox.replaceChildren();
    for (const s of state.seats) seatBox.append(el("option", { value: String(s.seat) }, `P${s.seat} ${s.name}`));
    seatBox.value = String(state.you === null ? 0 : state.you);
  }
  $("records-link").hidden = !state.scores.length;
  if (state.scores.length) $("review-button").textContent = `Review deal ${state.scores.length}`;
  drawLastTrick(state);
  const log = $("log");
  log.replaceChildren();
  for (const line of state.log) log.append(el("li", { class: line.includes("TRUMP CHANGES") ? "trump-change" : "" }, line));
  log.scrollTop = log.scrollHeight;
  renderResults(state);
  LAST = state;
}

function drawLastTrick(state) {
  const box = $("last-trick");
  box.replaceChildren();
  if (!state.last_trick) { box.append(el("span", {}, "no trick finished yet")); return; }
  box.append(el("span", {}, `trick ${state.last_trick.trick + 1}, won by P${state.last_trick.winner}:`));
  for (const c of state.last_trick.cards) {
    const node = cardFace(c);
    node.append(el("span", { class: "who" }, c.seat === state.you ? "you" : `P${c.seat}`));
    box.append(node);
  }
}

function drawTrick(node, cards, state) {
  node.replaceChildren();
  for (const c of cards) {
    const face = cardFace(c);
    face.append(el("span", { class: "who" }, `P${c.seat}`));
    node.append(face);
  }
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

function signed(x) { return (x >= 0 ? "+" : "") + x.toFixed(2); }

async function hint() {
  await busy(async () => {
    const h = await api("POST", "/api/play/hint", {});
    for (const m of h.moves) {
      const node = document.querySelector(`#hand [data-card="${m.action}"], #moves [data-action="${m.action}"]`);
      if (!node) continue;
      for (const old of node.querySelectorAll(".value")) old.remove();
      if (m.value === null) continue;
      const tag = el("span", { class: "value" }, `${signed(m.value)} ±${m.spread.toFixed(1)}`);
      tag.title = `${m.text}: ${signed(m.value)} a deal on average over the search's worlds, spread ±${m.spread.toFixed(2)}`;
      node.append(tag);
      node.classList.toggle("best", m.action === h.best);
    }
    const note = $("hint-note");
    note.hidden = false;
    note.textContent = h.searched
      ? `The search would play ${h.best_text}. A value is your mean score over the deals it sampled from what you can see; ` +
        "the spread (hover) says how much those deals disagree."
      : `The search does not value this decision (it leaves it to the rule-based player, which would choose ${h.best_text}).`;
  }, $("message"));
}

function reviewTable(review, node) {
  node.replaceChildren();
  node.hidden = false;
  node.append(el("h3", {}, `Review of P${review.seat}, deal ${review.deal + 1}: lost ${review.lost.toFixed(2)} over ` +
                           `${review.searched} valued moves`));
  const table = el("table");
  const head = el("tr");
  for (const h of ["trick", "played", "best", "played's value", "best's value", "lost"]) head.append(el("th", {}, h));
  table.append(head);
  for (const m of review.moves) {
    const values = Object.fromEntries(m.moves.map((x) => [x.action, x.value]));
    const best = m.searched ? Math.max(...m.moves.filter((x) => x.value !== null).map((x) => x.value)) : null;
    const tr = el("tr", { class: (m.loss !== null && m.loss > 0.005 ? "lost" : "") + (m.trump_change ? " trump-change" : "") });
    tr.dataset.step = String(m.step);
    const played = values[m.played];
    tr.append(el("td", {}, String(m.trick + 1)), el("td", {}, m.played_text + (m.trump_change ? ` (trump ${m.trump_change})` : "")),
              el("td", {}, m.best_text), el("td", {}, played == null ? "" : signed(played)),
              el("td", {}, best === null ? "" : signed(best)), el("td", {}, m.loss === null ? "not valued" : m.loss.toFixed(2)));
    table.append(tr);
  }
  node.append(table);
}

async function review() {
  await busy(async () => {
    reviewTable(await api("POST", "/api/play/review", { seat: Number($("review-seat").value) }), $("review"));
  }, $("message"));
}

// ------------------------------------------------------------------ watching
function watchOn() {
  watchOff();
  $("pause-button").textContent = "Pause";
  WATCH_TIMER = setInterval(watchStep, 700);
}

function watchOff() {
  if (WATCH_TIMER !== null) clearInterval(WATCH_TIMER);
  WATCH_TIMER = null;
}

let STEPPING = false;
async function watchStep() {
  if (STEPPING) return;
  if (!LAST || LAST.finished) { watchOff(); return; }
  STEPPING = true;
  try {
    renderTable(await api("POST", "/api/play/step", {}));
  } catch (e) {
    $("message").textContent = e.message;
    watchOff();
  } finally {
    STEPPING = false;
  }
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
    $("replay-review").hidden = true;
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
    for (const c of cards) box.append(cardFace(c));
    row.append(box);
    hands.append(row);
  });
  const lines = $("replay-lines");
  lines.replaceChildren();
  for (const line of f.lines) lines.append(el("li", { class: line.includes("TRUMP CHANGES") ? "trump-change" : "" }, line));
  const seat = $("replay-seat");
  if (seat.options.length !== f.seats.length) {
    seat.replaceChildren();
    for (const s of f.seats) seat.append(el("option", { value: String(s.seat) }, `P${s.seat} ${s.name}`));
  }
}

async function replayReview() {
  if (!FRAME) return;
  const msg = $("replay-message");
  try {
    const r = await api("POST", `/api/replay/${REPLAY.id}/${FRAME.deal_index}/review`, { seat: Number($("replay-seat").value) });
    msg.textContent = "";
    reviewTable(r, $("replay-review"));
  } catch (e) {
    msg.textContent = e.message;
  }
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
  for (const [game, info] of Object.entries(INFO.games)) $("replay-game").append(el("option", { value: game }, info.title));
  renderGames();
  $("play-form").addEventListener("submit", startTable);
  for (const m of ["mode-play", "mode-watch"]) $(m).addEventListener("change", updateSeats);
  $("replay-form").addEventListener("submit", openRecord);
  $("replay-deal").addEventListener("change", () => { $("replay-review").hidden = true; showFrame(Number($("replay-deal").value), 0); });
  $("replay-review-button").addEventListener("click", replayReview);
  for (const kind of ["first", "prev-trick", "prev", "next", "next-trick", "last"]) {
    $(kind).addEventListener("click", () => replayNav(kind));
  }
  $("tab-play").addEventListener("click", () => showTab("play"));
  $("tab-replay").addEventListener("click", () => showTab("replay"));
  $("hint-button").addEventListener("click", hint);
  $("review-button").addEventListener("click", review);
  $("new-table").addEventListener("click", newTable);
  $("last-trick-button").addEventListener("click", () => { $("last-trick").hidden = !$("last-trick").hidden; });
  $("pause-button").addEventListener("click", () => {
    if (WATCH_TIMER === null) { watchOn(); } else { watchOff(); $("pause-button").textContent = "Resume"; }
  });
  chooseGame(Object.keys(INFO.games)[0]);
  try {  // a reloaded page shows the session's table again
    showTable(await api("GET", "/api/play"));
  } catch (e) { /* no table yet */ }
  document.body.dataset.ready = "1";
}

init().catch((e) => { $("form-message").textContent = e.message; });
