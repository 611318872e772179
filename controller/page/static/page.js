// The dealer's page: renders each snapshot the controller pushes (server-sent events). It holds
// no game state of its own: whatever it shows comes from the last snapshot (docs/page-api.md).
// touch.js posts the dealer's touches; recall.js shows the last rounds from the journal.
"use strict";

const SPOTS = [["ante", "Ante"], ["play", "Play"], ["pair_plus", "Pair Plus"],
               ["six_card_bonus", "6 Card Bonus"], ["super6", "Super 6"]];
const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const SUPERVISOR = ["void_round", "override_wager", "reset_meters", "verify_jackpot", "set_jackpots"];
// each state: its name on the badge, and the state in words when a touch is not possible in it
const STATES = {
  starting: ["Starting", "the table is checking its devices"],
  ready: ["Ready", "no round is open"],
  betting: ["Betting", "betting is open"],
  closed: ["No more bets", "no more bets was called and the cards are still to be dealt"],
  dealing: ["Dealing", "the cards are being dealt"],
  decisions: ["Decisions", "the players are deciding"],
  collecting: ["Collecting", "the folded hands are being collected; the dealer's hand is not revealed yet"],
  settling: ["Settling", "the wagers are being settled"],
  complete: ["Complete", "the round is complete"],
  void: ["Void", "the round is void"],
  held: ["Held", "the round is held"],
};
// the footer button that is the dealer's next step in each state
const NEXT_STEP = { ready: "open_betting", complete: "open_betting", void: "open_betting",
                    betting: "no_more_bets", closed: "deal", collecting: "reveal" };
let snap = null;
let linkIsUp = false;

const $ = (id) => document.getElementById(id);
const esc = (text) => String(text).replace(/[&<>"']/g,
  (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const money = (cents) => {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const dollars = Math.floor(abs / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, "0")}`;
};
const words = (action) => action.replace(/_/g, " ");
const stateWords = (state) => (STATES[state] || [state, state])[1];
const two = (n) => String(n).padStart(2, "0");
// an ISO 8601 time (UTC) as the browser's local time of day, HH:MM:SS
const clock = (iso) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
};

// a button that cannot act now looks disabled (and says why when touched: touch.js)
function offer(button, yes) {
  button.classList.toggle("off", !yes);
  button.setAttribute("aria-disabled", String(!yes));
}

// --- the live connection ---------------------------------------------------------------

let source = null;

function connect() {
  source = new EventSource("/api/events");
  source.addEventListener("snapshot", (e) => {
    linkUp(true);
    render(JSON.parse(e.data));
  });
  source.onopen = () => linkUp(true);
  source.onerror = () => {
    linkUp(false);
    if (source.readyState === EventSource.CLOSED) {   // the browser gave up: start again
      source.close();
      setTimeout(connect, 1000);
    }
  };
}

function linkUp(up) {
  linkIsUp = up;
  $("link").className = "link " + (up ? "up" : "down");
  $("link").textContent = up ? "Live" : "Connection lost";
  $("lost").hidden = up;
  document.body.dataset.link = up ? "up" : "down";
  if (up) return;
  // nothing shown may claim to be current: devices unknown, no touch possible until it clears
  for (const b of document.querySelectorAll("footer button, .pos button")) b.disabled = true;
  if (snap) $("devices").innerHTML = devicesHtml(snap.devices, false);
}

// --- drawing a snapshot --------------------------------------------------------------------

function cardsHtml(text, count) {
  if (!text) return count ? '<span class="card back"></span>'.repeat(count) : "";
  return text.split(" ").map((c) => {
    if (c === "??") return '<span class="card bad">??</span>';
    const suit = c.slice(-1);
    const red = suit === "h" || suit === "d";
    return `<span class="card${red ? " red" : ""}">${esc(c.slice(0, -1))}${SUITS[suit] || esc(suit)}</span>`;
  }).join("");
}

function devicesHtml(devices, up) {
  return Object.entries(devices).map(([role, d]) => {
    const status = !up ? "unknown" : d.status || (d.online ? "online" : d.detail);
    const kind = !up ? " unknown" : status === "online" ? "" : " bad";
    const title = up ? d.detail : "not known while the connection to the table is lost";
    return `<span class="pill${kind}" data-device="${esc(role)}" title="${esc(title)}">${esc(role)}: ${
      esc(status)}</span>`;
  }).join("");
}

function alertHtml(a) {
  const where = a.round ? `round ${a.round}` : "table";
  return `<li><span class="kind"><time datetime="${esc(a.at || "")}">${clock(a.at)}</time> · ${where} · ${
    esc(words(a.kind))}${a.position ? ` · position ${a.position}` : ""}</span>${esc(a.message)}</li>`;
}

function render(s) {
  snap = s;
  window.tableSnapshot = s;
  document.body.dataset.state = s.state;
  document.body.dataset.version = s.version;
  $("table").textContent = s.table;
  $("preset").textContent = s.preset;
  $("round").textContent = s.round ?? "—";
  $("state").textContent = (STATES[s.state] || [s.state])[0];
  $("state").className = "state " + s.state;

  const [first, ...more] = s.prompt;
  $("prompt").innerHTML = (first ? `<div class="first">${esc(first)}</div>` : "") +
    more.map((line) => `<div class="more">${esc(line)}</div>`).join("");
  $("holds").innerHTML = s.holds.map((h) => `<div>${esc(h)}</div>`).join("");

  $("devices").innerHTML = devicesHtml(s.devices, linkIsUp);
  const locked = (s.jackpot && s.jackpot.locked) || [];     // a linked level won on the floor
  $("jackpots").innerHTML = Object.entries(s.jackpots).map(([name, cents]) =>
    `<span class="pill">${esc(name.toUpperCase())} ${
      locked.includes(name) ? "JACKPOT PENDING" : money(cents)}</span>`).join("");

  const pending = s.jackpot_pending || [];
  const claims = (s.jackpot_claims || []).filter((h) => h.floor !== "final" &&
    !pending.some((p) => p.jackpot === h.jackpot));
  $("jackpot-pending").hidden = !pending.length && !claims.length;
  $("jackpot-pending").innerHTML = pending.map((h) =>
    `JACKPOT ${esc(h.jackpot.toUpperCase())} · position ${h.seat} · ${
      h.amount === null ? "amount from the floor" : money(h.amount)} · ${esc(h.cards)}` +
    " — supervisor: verify the six cards" + (h.linked ? ` (floor: ${esc(h.floor)})` : "")).concat(
    claims.map((h) => `JACKPOT PENDING ${esc(h.jackpot.toUpperCase())} · position ${h.seat} · floor: ${
      esc(h.floor)}`)).join("<br>");
  const closed = s.jackpot && s.jackpot.super6_closed;
  $("super6").hidden = !closed;
  $("super6").textContent = closed ? "Super 6 closed: " + closed : "";
  $("hits").innerHTML = ((s.jackpot && s.jackpot.hits) || []).map((h) =>
    `<li><span class="kind">${esc(h.jackpot.toUpperCase())} · round ${h.round} · position ${h.seat}</span>${
      h.amount === null ? "amount from the floor pending" : money(h.amount)} (${esc(h.cards)}), verified by ${
      esc(h.verified_by)}</li>`).join("");

  $("dealer-cards").innerHTML = cardsHtml(s.dealer.cards, s.dealer.dealt ? 3 : 0);
  $("announcement").textContent = s.dealer.announcement || "";

  $("positions").innerHTML = s.positions.map((p) => positionHtml(s, p)).join("");
  const next = document.querySelector(".pos.next");       // the position to settle, always in view
  if (next) next.scrollIntoView({ block: "nearest" });

  $("alerts").innerHTML = s.alerts.slice().reverse().map(alertHtml).join("");

  for (const b of document.querySelectorAll("footer button")) b.disabled = !linkIsUp;
  for (const b of document.querySelectorAll("footer button[data-action]")) {
    offer(b, s.actions.includes(b.dataset.action));
    b.classList.toggle("next", NEXT_STEP[s.state] === b.dataset.action && s.actions.includes(b.dataset.action));
  }
  offer($("supervisor-menu"), s.actions.some((a) => SUPERVISOR.includes(a)));
  for (const b of document.querySelectorAll("[data-sup]")) offer(b, !supervisorRefusal(s, b.dataset.sup));
}

// why a supervisor's choice is not possible now ("" when it is offered)
function supervisorRefusal(s, action) {
  if (s.actions.includes(action)) return "";
  if (action === "set_jackpots" && !Object.keys(s.jackpots).length) return "This table has no jackpot values to post";
  return "Not now: " + stateWords(s.state);
}

function spotRows(s, p) {
  const wagers = Object.keys(p.wagers).length ? p.wagers : null;
  const shown = s.state === "betting" ? p.felt : (wagers || {});
  const deciding = s.state === "decisions" && p.wagers.ante && !p.decision;
  return SPOTS.filter(([key]) => (key in shown && (shown[key] !== 0 || s.state === "betting")) ||
                                 (key === "play" && (p.decision === "play" || (deciding && "play" in p.felt))))
    .map(([key, name]) => {
      let value = shown[key];
      let label = name;
      if (key === "play" && s.state !== "betting") {
        if (p.decision === "play") value = p.wagers.ante;
        else { value = p.felt.play; label = "Play chips"; }
      }
      const why = p.flags[key];
      const ovr = p.overrides && key in p.overrides ? '<span class="ovr"> (override)</span>' : "";
      return `<li class="${why ? "flag" : ""}"><span>${label}${ovr}</span><span>${
        value == null ? "unread" : money(value)}</span>${why ? `<span class="why">${esc(why)}</span>` : ""}</li>`;
    }).join("");
}

function positionHtml(s, p) {
  const rows = spotRows(s, p);
  let decision = "";
  if (p.decision === "play") decision = '<div class="decision plays">Plays</div>';
  if (p.decision === "fold") {
    decision = `<div class="decision folds">Folds${
      s.state === "collecting" ? " — collect the hand" : ""}</div>`;
  }
  let settle = "";
  if (p.settlement) {
    const net = p.settlement.net;
    settle = `<ul class="settle">${p.settlement.lines.map((l) => `<li>${esc(l)}</li>`).join("")}</ul>
      <div class="net ${net > 0 ? "pay" : net < 0 ? "take" : ""}">${
        net > 0 ? "Pay " + money(net) : net < 0 ? "Take " + money(-net) : "Push"}</div>
      ${p.settlement.paid ? '<div class="paid">Settled ✓</div>' : ""}`;
  }
  const problems = (p.problems || []).length
    ? `<ul class="problems">${p.problems.map((m) => `<li>${esc(m)}</li>`).join("")}</ul>` : "";
  const buttons = [];
  const off = (yes) => (yes ? ' aria-disabled="true"' : ' aria-disabled="false"');
  if (s.state === "decisions" && p.wagers.ante && !p.decision) {
    // the felt makes a Play (chips equal to the Ante); a fold leaves the Play spot empty
    const chips = "play" in p.felt;
    buttons.push(`<button class="play${p.felt.play === p.wagers.ante ? "" : " off"}" data-pos-action="play"
                   data-position="${p.position}"${off(p.felt.play !== p.wagers.ante)}>Play</button>`,
                 `<button class="fold${chips ? " off" : ""}" data-pos-action="fold"
                   data-position="${p.position}"${off(chips)}>Fold</button>`);
  }
  const next = s.state === "settling" && s.next_to_pay === p.position;
  if (next) {
    const waiting = (s.jackpot_pending || []).length > 0 ||
      (s.jackpot_claims || []).some((h) => h.seat === p.position && h.floor !== "final");
    buttons.push(`<button class="confirm${waiting ? " off" : ""}" data-pos-action="confirm"
                   data-position="${p.position}"${off(waiting)}>Settled</button>`);
  }
  const empty = !rows && !p.dealt && !problems;
  return `<div class="pos${empty ? " empty" : ""}${next ? " next" : ""}${problems ? " trouble" : ""}" id="pos-${
    p.position}">
    <h3><span>Position ${p.position}</span>${p.linked ? `<span class="dim">with ${p.linked}</span>` : ""}</h3>
    ${p.settlement ? "" : `<ul class="spots">${rows}</ul>`}
    <div class="cards">${cardsHtml(p.cards, p.dealt ? 3 : 0)}</div>
    ${decision}${settle}${problems}
    <div class="buttons">${buttons.join("")}</div></div>`;
}
