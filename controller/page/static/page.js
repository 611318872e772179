// The dealer's page: renders each snapshot the controller pushes (server-sent events) and
// posts the dealer's touches to /api/action. It holds no game state of its own: whatever it
// shows comes from the last snapshot, and every action's verdict comes from the table.
"use strict";

const SPOTS = [["ante", "Ante"], ["play", "Play"], ["pair_plus", "Pair Plus"],
               ["six_card_bonus", "6 Card Bonus"], ["super6", "Super 6"]];
const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
let snap = null;
let source = null;

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

// --- the live connection ---------------------------------------------------------------

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
  $("link").className = "link " + (up ? "up" : "down");
  $("link").textContent = up ? "Live" : "Connection lost";
  $("lost").hidden = up;
  document.body.dataset.link = up ? "up" : "down";
  if (!up) for (const b of document.querySelectorAll("button[data-action], .pos button")) b.disabled = true;
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

function render(s) {
  snap = s;
  window.tableSnapshot = s;
  document.body.dataset.state = s.state;
  document.body.dataset.version = s.version;
  $("table").textContent = s.table;
  $("preset").textContent = s.preset;
  $("round").textContent = s.round ?? "—";
  $("state").textContent = s.state;
  $("state").className = "state " + s.state;

  const [first, ...more] = s.prompt;
  $("prompt").innerHTML = (first ? `<div class="first">${esc(first)}</div>` : "") +
    more.map((line) => `<div class="more">${esc(line)}</div>`).join("");
  $("holds").textContent = s.holds.length ? "Held: " + s.holds.join("; ") : "";

  $("devices").innerHTML = Object.entries(s.devices).map(([role, d]) =>
    `<span class="pill${d.online ? "" : " bad"}" title="${esc(d.detail)}">${esc(role)}: ${
      d.online ? "online" : esc(d.detail)}</span>`).join("");
  $("jackpots").innerHTML = Object.entries(s.jackpots).map(([name, cents]) =>
    `<span class="pill">${esc(name.toUpperCase())} ${money(cents)}</span>`).join("");

  const pending = s.jackpot_pending || [];
  $("jackpot-pending").hidden = !pending.length;
  $("jackpot-pending").innerHTML = pending.map((h) =>
    `JACKPOT ${esc(h.jackpot.toUpperCase())} · position ${h.seat} · ${money(h.amount)} · ${esc(h.cards)}` +
    " — supervisor: verify the six cards").join("<br>");
  const closed = s.jackpot && s.jackpot.super6_closed;
  $("super6").hidden = !closed;
  $("super6").textContent = closed ? "Super 6 closed: " + closed : "";
  $("hits").innerHTML = ((s.jackpot && s.jackpot.hits) || []).map((h) =>
    `<li><span class="kind">${esc(h.jackpot.toUpperCase())} · round ${h.round} · position ${h.seat}</span>${
      money(h.amount)} (${esc(h.cards)}), verified by ${esc(h.verified_by)}</li>`).join("");

  $("dealer-cards").innerHTML = cardsHtml(s.dealer.cards, s.dealer.dealt ? 3 : 0);
  $("announcement").textContent = s.dealer.announcement || "";

  $("positions").innerHTML = s.positions.map((p) => positionHtml(s, p)).join("");

  $("alerts").innerHTML = s.alerts.slice().reverse().map((a) =>
    `<li><span class="kind">${esc(words(a.kind))}${a.position ? ` · position ${a.position}` : ""}</span>${
      esc(a.message)}</li>`).join("");

  for (const b of document.querySelectorAll("footer button[data-action]")) {
    b.disabled = !s.actions.includes(b.dataset.action);
  }
  $("supervisor-menu").disabled = !s.actions.some((a) => SUPERVISOR.includes(a));
  for (const b of document.querySelectorAll("[data-sup]")) b.disabled = !s.actions.includes(b.dataset.sup);
}

function positionHtml(s, p) {
  const wagers = Object.keys(p.wagers).length ? p.wagers : null;
  const shown = s.state === "betting" ? p.felt : (wagers || {});
  const rows = SPOTS.filter(([key]) => (key in shown && (shown[key] !== 0 || s.state === "betting")) ||
                                       (key === "play" && p.decision === "play"))
    .map(([key, name]) => {
      let value = shown[key];
      if (key === "play" && s.state !== "betting" && p.decision === "play") value = p.wagers.ante;
      const why = p.flags[key];
      const ovr = p.overrides && key in p.overrides ? '<span class="ovr"> (override)</span>' : "";
      return `<li class="${why ? "flag" : ""}"><span>${name}${ovr}</span><span>${
        value == null ? "unread" : money(value)}</span>${why ? `<span class="why">${esc(why)}</span>` : ""}</li>`;
    }).join("");
  const decision = p.decision ? `<div class="decision ${p.decision === "play" ? "plays" : "folds"}">${p.decision === "play" ? "Plays" : "Folds"}</div>` : "";
  let settle = "";
  if (p.settlement) {
    const net = p.settlement.net;
    settle = `<ul class="settle">${p.settlement.lines.map((l) => `<li>${esc(l)}</li>`).join("")}</ul>
      <div class="net ${net > 0 ? "pay" : net < 0 ? "take" : ""}">${
        net > 0 ? "Pay " + money(net) : net < 0 ? "Take " + money(-net) : "Push"}</div>
      ${p.settlement.paid ? '<div class="paid">Settled ✓</div>' : ""}`;
  }
  const buttons = [];
  if (s.state === "decisions" && p.wagers.ante && !p.decision) {
    buttons.push(`<button class="play" data-pos-action="play" data-position="${p.position}">Play</button>`,
                 `<button class="fold" data-pos-action="fold" data-position="${p.position}">Fold</button>`);
  }
  if (s.state === "settling" && s.next_to_pay === p.position) {
    buttons.push(`<button class="confirm" data-pos-action="confirm" data-position="${p.position}">Settled</button>`);
  }
  const empty = !rows && !p.dealt;
  const next = s.state === "settling" && s.next_to_pay === p.position;
  return `<div class="pos${empty ? " empty" : ""}${next ? " next" : ""}" id="pos-${p.position}">
    <h3><span>Position ${p.position}</span>${p.linked ? `<span class="dim">with ${p.linked}</span>` : ""}</h3>
    ${p.settlement ? "" : `<ul class="spots">${rows}</ul>`}
    <div class="cards">${cardsHtml(p.cards, p.dealt ? 3 : 0)}</div>
    ${decision}${settle}
    <div class="buttons">${buttons.join("")}</div></div>`;
}

// --- touches ---------------------------------------------------------------------------------

const SUPERVISOR = ["void_round", "override_wager", "reset_meters", "verify_jackpot", "set_jackpots"];

async function send(body) {
  let answer;
  try {
    const response = await fetch("/api/action", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    answer = await response.json();
    answer.status = response.status;
  } catch (err) {
    answer = { ok: false, message: "the table did not answer (connection lost)", status: 0 };
  }
  return answer;
}

async function act(body) {
  const answer = await send(body);
  if (!answer.ok) toast(answer.message, false);
  return answer;
}

let toastTimer = null;
function toast(message, ok) {
  const t = $("toast");
  t.textContent = message;
  t.className = "toast" + (ok ? " ok" : "");
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 5000);
}

document.addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b || b.disabled) return;
  if (b.dataset.posAction) {
    act({ action: b.dataset.posAction, position: Number(b.dataset.position) });
  } else if (b.dataset.action === "misdeal") {
    $("misdeal-dialog").showModal();
  } else if (b.dataset.action === "call_supervisor") {
    act({ action: "call_supervisor" }).then((a) => a.ok && toast("Supervisor called", true));
  } else if (b.dataset.action) {
    act({ action: b.dataset.action });
  }
});

$("misdeal-dialog").addEventListener("close", () => {
  const reason = $("misdeal-dialog").returnValue;
  if (reason) act({ action: "misdeal", reason });
});

// --- the supervisor's dialog -------------------------------------------------------------------

let supAction = null;

// "12.50" -> 1250 cents, exactly (no floating point); NaN when it is not an amount
function cents(text) {
  const t = text.trim().replace(/,/g, "");
  if (!/^\d+(\.\d{1,2})?$/.test(t)) return NaN;
  const [whole, frac = ""] = t.split(".");
  return Number(whole) * 100 + Number(frac.padEnd(2, "0"));
}

$("supervisor-menu").addEventListener("click", () => {
  supAction = null;
  $("sup-title").textContent = "Supervisor";
  $("sup-choices").hidden = false;
  $("sup-fields").hidden = true;
  $("sup-dialog").showModal();
});

for (const b of document.querySelectorAll("[data-sup]")) {
  b.addEventListener("click", () => {
    supAction = b.dataset.sup;
    $("sup-title").textContent = b.textContent;
    $("sup-choices").hidden = true;
    $("sup-fields").hidden = false;
    $("override-fields").hidden = supAction !== "override_wager";
    $("jackpot-fields").hidden = supAction !== "set_jackpots";
    $("verify-fields").hidden = supAction !== "verify_jackpot";
    $("verify-fields").innerHTML = ((snap && snap.jackpot_pending) || []).map((h) =>
      `${esc(h.jackpot.toUpperCase())} at position ${h.seat}: ${esc(h.cards)} — pay ${money(h.amount)}`).join("<br>");
    for (const name of ["mega", "major", "minor"]) {
      $("jp-" + name).value = snap ? (snap.jackpots[name] / 100).toFixed(2) : "";
    }
    $("ov-position").innerHTML = (snap ? snap.positions : []).map((p) =>
      `<option value="${p.position}">${p.position}</option>`).join("");
    $("sup-reason").value = "";
    $("sup-pin").value = "";
    $("sup-error").textContent = "";
  });
}

// a touchscreen has no keyboard: the usual reasons are one touch away
$("reasons").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (b) $("sup-reason").value = b.textContent;
});

$("keypad").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b) return;
  const pin = $("sup-pin");
  if (b.dataset.key === "clear") pin.value = "";
  else if (b.dataset.key === "back") pin.value = pin.value.slice(0, -1);
  else if (pin.value.length < 12) pin.value += b.textContent;
});

$("sup-submit").addEventListener("click", async () => {
  const body = { action: supAction, reason: $("sup-reason").value.trim(), pin: $("sup-pin").value,
                 role: document.querySelector("input[name=sup-role]:checked").value };
  if (supAction === "override_wager") {
    body.amount = cents($("ov-amount").value);
    body.position = Number($("ov-position").value);
    body.spot = $("ov-spot").value;
  }
  if (supAction === "set_jackpots") {
    for (const name of ["mega", "major", "minor"]) body[name] = cents($("jp-" + name).value);
  }
  if (Object.values(body).some((v) => Number.isNaN(v))) {
    $("sup-error").textContent = "amounts: dollars and cents, such as 25 or 12.50";
    return;
  }
  const answer = await send(body);
  $("sup-pin").value = "";
  if (answer.ok) {
    $("sup-dialog").close();
    toast(`${words(supAction)}: done`, true);
  } else {
    $("sup-error").textContent = answer.message;
  }
});

connect();
