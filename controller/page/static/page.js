// The dealer's page: renders each snapshot the controller pushes (server-sent events). It holds
// no game state of its own: whatever it shows comes from the last snapshot (docs/page-api.md).
// touch.js posts the dealer's touches; recall.js shows the last rounds from the journal.
// Every word the dealer reads goes through t(): the catalogue's words in the table's language
// (/words.js, loaded before this script: LANGUAGE and WORDS), keyed by their English text.
"use strict";

// a word of the page in the table's language; {name} is filled from values
const fill = (text, values) => text.replace(/\{(\w+)\}/g,
  (whole, name) => (values && name in values ? String(values[name]) : whole));
const t = (id, values) => fill(WORDS[id] || id, values);
// the same English word meaning two things (the Play spot, the Play button): told apart by a
// context, as gettext's pgettext does (its key in the catalogue: context, \u0004, the word)
const tc = (context, id, values) => fill(WORDS[context + "\u0004" + id] || WORDS[id] || id, values);

// the static page's words, marked data-t (its text) and data-t-ATTR (that attribute), as the
// catalogue's extractor reads them (scripts/catalogue.py): whitespace runs count as one space
function translatePage() {
  document.documentElement.lang = LANGUAGE;
  for (const el of document.querySelectorAll("[data-t]")) {
    for (const node of el.childNodes) {
      const text = node.nodeType === Node.TEXT_NODE ? node.textContent : "";
      if (!text.trim()) continue;
      node.textContent = text.match(/^\s*/)[0] + t(text.trim().replace(/\s+/g, " ")) + text.match(/\s*$/)[0];
    }
  }
  for (const attr of ["title", "placeholder", "aria-label"]) {
    for (const el of document.querySelectorAll(`[data-t-${attr}]`)) el.setAttribute(attr, t(el.getAttribute(attr)));
  }
}
translatePage();

// The language of this screen, chosen here by the person reading it (the dealer's and a supervisor's
// tablet may differ): a cookie this browser sends with every request, so the page, its events, its
// answers, recall and the report all follow it; ?lang=es in the address chooses it too (a kiosk's start
// address). Each language is named in its own words, so a reader who cannot read this one finds theirs.
const LANGUAGE_NAMES = { en: "English", es: "Español" };
function chooseLanguage(language) {
  document.cookie = `lang=${encodeURIComponent(language)}; path=/; max-age=31536000; samesite=strict`;
  const url = new URL(location.href);
  url.searchParams.delete("lang");
  location.replace(url.href);
}
(() => {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && LANGUAGES.includes(asked) && asked !== LANGUAGE) chooseLanguage(asked);
  const button = document.getElementById("language");
  if (!button) return;
  const other = LANGUAGES[(LANGUAGES.indexOf(LANGUAGE) + 1) % LANGUAGES.length];
  button.textContent = LANGUAGE_NAMES[other] || other;
  button.lang = other;
  button.addEventListener("click", () => chooseLanguage(other));
})();

const SPOTS = [["ante", t("Ante")], ["play", t("Play")], ["pair_plus", t("Pair Plus")],
               ["six_card_bonus", t("6 Card Bonus")], ["super6", t("Super 6")]];
const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const SUPERVISOR = ["void_round", "override_wager", "reset_meters", "verify_jackpot", "refer_jackpot", "set_jackpots"];
// each state: its name on the badge, and the state in words when a touch is not possible in it
const STATES = {
  starting: [t("Starting"), t("the table is checking its devices")],
  ready: [t("Ready"), t("no round is open")],
  betting: [t("Betting"), t("betting is open")],
  closed: [t("No more bets"), t("no more bets was called and the cards are still to be dealt")],
  dealing: [t("Dealing"), t("the cards are being dealt")],
  decisions: [t("Decisions"), t("the players are deciding")],
  collecting: [t("Collecting"), t("the folded hands are being collected; the dealer's hand is not revealed yet")],
  settling: [t("Settling"), t("the wagers are being settled")],
  complete: [t("Complete"), t("the round is complete")],
  void: [t("Void"), t("the round is void")],
  held: [t("Held"), t("the round is held")],
};
// the names of what the snapshot gives as machine words: alert kinds, devices, their states
const KINDS = {
  misdeal: t("misdeal"), past_posting: t("past posting"), play_amount: t("play amount"),
  unread_spot: t("unread spot"), device_fault: t("device fault"), device_offline: t("device offline"),
  device_security: t("device security"), sensor_fault: t("sensor fault"), shoe_error: t("shoe error"),
  command_failed: t("command failed"), deck_check: t("deck check"), deck_count: t("deck count"),
  dead_hand: t("dead hand"), shoe_slow: t("shoe slow"), shuffle_late: t("shuffle late"), hold: tc("alert", "hold"),
  recovery: t("recovery"), settlement: t("settlement"), void: t("void"), supervisor_called: t("supervisor called"),
  super6_closed: t("Super 6 closed"), super6_open: t("Super 6 open"), jackpot_hit: t("jackpot hit"),
  jackpot_verified: t("jackpot verified"), jackpot_posted: t("jackpot posted"), internal_error: t("internal error"),
  config_changed: t("configuration changed"), clock: t("clock"), security: t("security"),
  pin_lockout: t("PIN lockout"), journal_behind_floor: t("journal behind the floor"),
  jackpot_locked: t("jackpot locked"), jackpot_claim: t("jackpot claim"), jackpot_referred: t("jackpot referred"),
  jackpot_final_differs: t("jackpot claim changed"), dealer_signed_out: t("dealer signed out"),
};
const DEVICES = { shoe: t("shoe"), sensors: t("sensors"), sign: t("sign") };
const STATUS = { online: t("online"), reading: t("reading"), offline: t("offline"), jammed: t("jammed"),
                 "door open": t("door open"), unknown: t("unknown") };
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
const kindWords = (kind) => KINDS[kind] || words(kind);
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
  $("link").textContent = up ? t("Live") : t("Connection lost");
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
    const title = up ? d.detail : t("not known while the connection to the table is lost");
    return `<span class="pill${kind}" data-device="${esc(role)}" title="${esc(title)}">${esc(DEVICES[role] || role)}: ${
      esc(STATUS[status] || status)}</span>`;
  }).join("");
}

// alerts the table words for a technician, said for the dealer (the technician's words stay in the
// title); the snapshot should carry the dealer's words itself (issue 31, item 9)
const DEALER_SAYS = {
  config_changed: t("The table's settings were changed since it last ran: call a technician to check them before play"),
  journal_behind_floor: t("The table's records do not match the floor's: the table will not play. Call a supervisor"),
};

function alertHtml(a) {
  const where = a.round ? t("round {round}", { round: a.round }) : t("table");
  const when = a.at ? clock(a.at) : t("time not recorded");
  const said = DEALER_SAYS[a.kind];
  return `<li${said ? ` title="${esc(a.message)}"` : ""}><span class="kind"><time datetime="${esc(a.at || "")}">${
    esc(when)}</time> · ${where} · ${esc(kindWords(a.kind))}${
    a.position ? " · " + t("position {position}", { position: a.position }) : ""}</span>${esc(said || a.message)}</li>`;
}

function render(s) {
  snap = s;
  window.tableSnapshot = s;
  document.body.dataset.state = s.state;
  document.body.dataset.version = s.version;
  $("table").textContent = s.table;
  $("preset").textContent = s.preset;
  $("round").textContent = s.round ?? "—";
  // a halted table (its journal cannot be written) refuses every touch: it says so, nothing is offered
  const halted = Boolean(s.halted);
  document.body.dataset.halted = String(halted);
  $("state").textContent = halted ? t("Stopped") : (STATES[s.state] || [s.state])[0];
  $("state").className = "state " + (halted ? "held" : s.state);
  renderShift(s);                                       // who is dealing (shift.js)

  const [first, ...more] = halted ? [t("The table has stopped"), s.halted] : promptLines(s);
  $("prompt").innerHTML = (first ? `<div class="first">${esc(first)}</div>` : "") +
    more.map((line) => `<div class="more">${esc(line)}</div>`).join("");
  $("holds").innerHTML = s.holds.map((h) => `<div>${esc(h)}</div>`).join("");

  $("devices").innerHTML = devicesHtml(s.devices, linkIsUp);
  const locked = (s.jackpot && s.jackpot.locked) || [];     // a linked level won on the floor
  $("jackpots").innerHTML = Object.entries(s.jackpots).map(([name, cents]) =>
    `<span class="pill">${esc(name.toUpperCase())} ${
      locked.includes(name) ? esc(t("JACKPOT PENDING")) : money(cents)}</span>`).join("");

  const pending = s.jackpot_pending || [];
  const claims = (s.jackpot_claims || []).filter((h) => h.floor !== "final" &&
    !pending.some((p) => p.jackpot === h.jackpot));
  $("jackpot-pending").hidden = !pending.length && !claims.length;
  $("jackpot-pending").innerHTML = pending.map((h) => esc(t(
    "JACKPOT {jackpot} · position {position} · {amount} · {cards} — supervisor: verify the six cards",
    { jackpot: h.jackpot.toUpperCase(), position: h.seat, cards: h.cards,
      amount: h.amount === null ? t("amount from the floor") : money(h.amount) })) +
    (h.linked ? " " + esc(t("(floor: {status})", { status: h.floor })) : "")).concat(
    claims.map((h) => esc(t("JACKPOT PENDING {jackpot} · position {position} · floor: {status}",
      { jackpot: h.jackpot.toUpperCase(), position: h.seat, status: h.floor })))).join("<br>");
  const closed = s.jackpot && s.jackpot.super6_closed;
  $("super6").hidden = !closed;
  $("super6").textContent = closed ? t("Super 6 closed: {why}", { why: closed }) : "";
  $("hits").innerHTML = ((s.jackpot && s.jackpot.hits) || []).map((h) =>
    `<li><span class="kind">${esc(h.jackpot.toUpperCase())} · ${t("round {round}", { round: h.round })} · ${
      t("position {position}", { position: h.seat })}</span>${esc(t("{amount} ({cards}), verified by {by}",
      { amount: h.amount === null ? t("amount from the floor pending") : money(h.amount), cards: h.cards,
        by: h.verified_by }))}</li>`).join("");

  $("dealer-cards").innerHTML = cardsHtml(s.dealer.cards, s.dealer.dealt ? 3 : 0);
  // the announcement names a qualifying hand; a hand that does not qualify is named after it
  const said = s.dealer.announcement || "";
  $("announcement").textContent = said && s.dealer.hand && s.dealer.qualifies === false
    ? `${said} · ${s.dealer.hand}` : said;

  // six positions in two rows of three, whatever the screen: each box wide enough for its lines
  const n = s.positions.length;
  $("positions").style.setProperty("--columns", String(n <= 3 ? n : Math.ceil(n / 2)));
  $("positions").innerHTML = s.positions.map((p) => positionHtml(s, p)).join("");
  fitPayLines();                                          // as large as the room allows (fit.js)
  const next = document.querySelector(".pos.next");       // the position to settle, always in view
  if (next) next.scrollIntoView({ block: "nearest" });

  $("alerts").innerHTML = s.alerts.slice().reverse().map(alertHtml).join("");

  for (const b of document.querySelectorAll("footer button")) b.disabled = !linkIsUp;
  // no dealer signed in where dealers sign in: the next step is the header's "Dealer sign in" (shift.js)
  const awaiting = awaitingDealer(s);
  const offered = halted ? [] : s.actions;
  for (const b of document.querySelectorAll("footer button[data-action]")) {
    offer(b, offered.includes(b.dataset.action));
    b.classList.toggle("next", !awaiting && NEXT_STEP[s.state] === b.dataset.action
                               && offered.includes(b.dataset.action));
  }
  offer($("supervisor-menu"), offered.some((a) => SUPERVISOR.includes(a)));
  for (const b of document.querySelectorAll("[data-sup]")) offer(b, !supervisorRefusal(s, b.dataset.sup));
  // settling without the linked award is a linked jackpot's only (the snapshot names its group)
  $("sup-choices").querySelector("[data-sup=refer_jackpot]").hidden = !(s.jackpot && s.jackpot.group);
}

// the snapshot's prompt, and after a void round whose cards were out the reshuffle, before the next
// round opens (the table asked the shoe to reshuffle; the snapshot does not say so yet)
function promptLines(s) {
  const lines = s.prompt.slice();
  if (s.state === "void" && (s.dealer.dealt || s.positions.some((p) => p.dealt))) {
    lines.splice(Math.max(1, lines.length - 1), 0, t("Put every card of this round into the shoe: it reshuffles them"));
  }
  return lines;
}

// why a supervisor's choice is not possible now ("" when it is offered)
function supervisorRefusal(s, action) {
  if (action === "verify_jackpot" && s.actions.includes(action) && !(s.jackpot_pending || []).length) {
    return t("No jackpot hit is waiting to be verified");
  }
  if (s.actions.includes(action)) return "";
  if (action === "set_jackpots" && !Object.keys(s.jackpots).length) return t("This table has no jackpot values to post");
  return t("Not now: {why}", { why: stateWords(s.state) });
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
        else { value = p.felt.play; label = t("Play chips"); }
      }
      const why = p.flags[key];
      const ovr = p.overrides && key in p.overrides ? `<span class="ovr"> ${esc(t("(override)"))}</span>` : "";
      return `<li class="${why ? "flag" : ""}"><span>${label}${ovr}</span><span>${
        value == null ? esc(t("unread")) : money(value)}</span>${why ? `<span class="why">${esc(why)}</span>` : ""}</li>`;
    }).join("");
}

function positionHtml(s, p) {
  const rows = spotRows(s, p);
  let decision = "";
  if (p.decision === "play") decision = `<div class="decision plays">${esc(t("Plays"))}</div>`;
  if (p.decision === "fold") {
    decision = `<div class="decision folds">${esc(s.state === "collecting" ? t("Folds — collect the hand")
      : t("Folds"))}</div>`;
  }
  // the cards are up: the hand as the dealer announces it, and a played position's six cards (its three
  // with the dealer's: they settle its 6 Card Bonus and Super 6; a fold's are in its lines, where its
  // cards set aside are turned up), on one line under the heading
  const sixHand = p.six_card_hand && p.decision !== "fold" ? t("Six cards: {hand}", { hand: p.six_card_hand }) : "";
  const hands = p.hand ? `<div class="hands"><span class="hand">${esc(p.hand)}</span>${
    sixHand ? ` · <span class="six">${esc(sixHand)}</span>` : ""}</div>` : "";
  let settle = "";
  let net = "";
  if (p.settlement) {
    // what is left to do at the position, in the table's words (settlement.total: a fold's forfeits
    // went with its cards; a payment and a take that cancel out are both named, never "Push")
    const cents = p.settlement.net;
    settle = `${hands}<ul class="settle">${p.settlement.lines.map((l) => `<li>${esc(l)}</li>`).join("")}</ul>`;
    net = `<div class="net ${cents > 0 ? "pay" : cents < 0 ? "take" : ""}">${esc(p.settlement.total)}${
      p.settlement.paid ? ` <span class="paid">${esc(t("Settled ✓"))}</span>` : ""}</div>`;
  }
  const problems = (p.problems || []).length
    ? `<ul class="problems">${p.problems.map((m) => `<li>${esc(m)}</li>`).join("")}</ul>` : "";
  const buttons = [];
  const off = (yes) => (yes ? ' aria-disabled="true"' : ' aria-disabled="false"');
  if (s.state === "decisions" && p.wagers.ante && !p.decision) {
    // the felt makes a Play (chips equal to the Ante); a fold leaves the Play spot empty
    const chips = "play" in p.felt;
    buttons.push(`<button class="play${p.felt.play === p.wagers.ante ? "" : " off"}" data-pos-action="play"
                   data-position="${p.position}"${off(p.felt.play !== p.wagers.ante)}>${esc(tc("button", "Play"))}</button>`,
                 `<button class="fold${chips ? " off" : ""}" data-pos-action="fold"
                   data-position="${p.position}"${off(chips)}>${esc(t("Fold"))}</button>`);
  }
  const next = s.state === "settling" && s.next_to_pay === p.position;
  if (next) {
    const waiting = (s.jackpot_pending || []).length > 0 ||
      (s.jackpot_claims || []).some((h) => h.seat === p.position && h.floor !== "final");
    buttons.push(`<button class="confirm${waiting ? " off" : ""}" data-pos-action="confirm"
                   data-position="${p.position}"${off(waiting)}>${esc(t("Settled"))}</button>`);
  }
  const empty = !rows && !p.dealt && !problems;
  // one line of heading (the position, its partner, its cards), then the spots or what to pay and take,
  // its problems, and at the foot the net beside the button to touch
  return `<div class="pos${empty ? " empty" : ""}${next ? " next" : ""}${problems ? " trouble" : ""}" id="pos-${
    p.position}">
    <div class="head"><h3><span>${esc(t("Position {position}", { position: p.position }))}</span>${
      p.linked ? `<span class="dim">${esc(t("with {position}", { position: p.linked }))}</span>` : ""}</h3>${
      decision}<div class="cards">${cardsHtml(p.cards, p.dealt ? 3 : 0)}</div></div>
    ${p.settlement ? "" : `<ul class="spots">${rows}</ul>`}
    ${settle}${problems}
    <div class="foot">${net}<div class="buttons">${buttons.join("")}</div></div></div>`;
}
