// Game recall: the last ten rounds from the journal (GET /api/recall), the one in play included,
// newest first: each position's cards, wagers, decision, results and net; the dealer's cards (high to
// low, as the live page arranges them) and announcement. A round in play shows no card the table does
// not show. Any round is a touch away: "Earlier rounds" (?before=N) and a round number on the keypad
// (?round=N).
"use strict";

const RESULT_SPOTS = [["play", t("Play")], ["ante_bonus", t("Ante Bonus")], ["ante", t("Ante")],
                      ["pair_plus", t("Pair Plus")], ["six_card_bonus", t("6 Card Bonus")], ["super6", t("Super 6")]];
const STATUSES = { open: t("open"), complete: t("complete"), void: t("void") };
const signed = (cents) => (cents > 0 ? "+" : "") + money(cents);

// an ISO 8601 time (UTC) as the browser's local date and time, YYYY-MM-DD HH:MM:SS
function localTime(iso) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return "";
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${clock(iso)}`;
}

function recallSeatHtml(rnd, seat) {
  const result = (rnd.table.results || []).find((r) => r.seat === seat.seat);
  const stakes = RESULT_SPOTS.filter(([key]) => seat.wagers[key])
    .map(([key, name]) => `${name} ${money(seat.wagers[key])}`);
  if (seat.play) stakes.splice(1, 0, `${t("Play")} ${money(seat.wagers.ante)}`);
  const decision = seat.play === true ? t("Plays") : seat.play === false ? t("Folds") : "—";
  let results = "—";
  let net = "—";
  if (result) {
    const six = (rnd.table.six_card_hands || {})[String(seat.seat)];
    const won = RESULT_SPOTS.filter(([key]) => result.results[key])
      .map(([key, name]) => `${name} ${signed(result.results[key])}${
        six && (key === "six_card_bonus" || key === "super6") ? ` (${six})` : ""}`);
    if (result.cap_reduction) won.push(t("cap −{amount}", { amount: money(result.cap_reduction) }));
    results = won.join(", ") || t("push");
    net = signed(result.net);
  }
  const paid = rnd.table.paid && String(seat.seat) in rnd.table.paid ? ` <span class="dim">${esc(t("paid"))}</span>` : "";
  return `<tr data-seat="${seat.seat}"><td>${seat.seat}</td>
    <td class="cards small">${seat.cards ? cardsHtml(seat.cards) : `<span class="dim">${esc(t("hidden"))}</span>`}${
      handHtml(rnd.table, String(seat.seat))}</td>
    <td>${esc(stakes.join(", ") || "—")}</td><td>${esc(decision)}</td><td>${esc(results)}</td>
    <td class="net">${net}${paid}</td></tr>`;
}

function recallRoundHtml(rnd) {
  const tb = rnd.table;
  const status = tb.status === "open" ? t("in play ({state})", { state: t(tb.state) })
    : STATUSES[tb.status] || tb.status;
  const dealer = rnd.dealer ? `<span class="cards small">${cardsHtml(arranged(rnd.dealer))}</span>`
    : `<span class="dim">${esc(tb.status === "open" ? t("hidden") : t("not dealt"))}</span>`;
  const notes = [];
  if (tb.void_reason) notes.push(esc(t("Void: {reason}", { reason: tb.void_reason })));
  if (rnd.hidden) notes.push(`<span class="dim">${esc(rnd.hidden)}</span>`);
  for (const a of tb.alerts || []) {
    notes.push(`<span class="alert-note">${esc(kindWords(a.kind))}: ${esc(a.message)}</span>`);
  }
  const replay = tb.status === "open" ? ""
    : `<button type="button" class="replay" data-round="${rnd.id}">${esc(t("Replay"))}</button>`;
  return `<section class="recall-round" id="recall-${rnd.id}" data-round="${rnd.id}">
    <h3>${esc(t("Round {round}", { round: rnd.id }))} <span class="status ${esc(tb.status)}">${esc(status)}</span>
      <time datetime="${esc(tb.opened_at)}">${localTime(tb.opened_at)}</time>${dealtBy(tb)}${replay}</h3>
    <div class="recall-dealer">${esc(t("Dealer"))} ${dealer} <b>${esc(tb.announcement || "")}</b>${
      handHtml(tb, "dealer")}</div>
    <table><thead><tr><th>${esc(t("Position"))}</th><th>${esc(t("Cards"))}</th><th>${esc(t("Wagers"))}</th><th>${
      esc(t("Decision"))}</th><th>${esc(t("Results"))}</th><th>${esc(t("Net"))}</th></tr></thead>
      <tbody>${rnd.seats.map((seat) => recallSeatHtml(rnd, seat)).join("") ||
        `<tr><td colspan="6" class="dim">${esc(t("no wagers"))}</td></tr>`}</tbody></table>
    ${notes.map((n) => `<div class="note">${n}</div>`).join("")}</section>`;
}

// a hand's name as the dealer announced it (the six cards' hand goes with the 6 Card Bonus and Super 6
// results it settled)
function handHtml(tb, where) {
  const hand = (tb.hands || {})[where];
  return hand ? `<span class="hand-name">${esc(hand)}</span>` : "";
}

// who dealt the round: the dealer signed in when it opened (a journal from before dealers signed in,
// or a table whose dealers have no PINs, has no name to show)
function dealtBy(tb) {
  return tb.dealt_by ? ` <span class="dealt-by">${esc(t("dealt by {name}", { name: tb.dealt_by }))}</span>` : "";
}

// the dealer's cards high to low, as the live page lays them out ("Qd 8c 5d"; a ten is "10h")
const RANK_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const SUIT_ORDER = "cdhs";
const cardOrder = (c) => RANK_ORDER.indexOf(c.slice(0, -1)) * 4 + SUIT_ORDER.indexOf(c.slice(-1));
const arranged = (text) => text.split(" ").sort((a, b) => cardOrder(b) - cardOrder(a)).join(" ");

async function showRecall(query = "") {
  const list = $("recall-list");
  if (typeof closeReplay === "function") closeReplay();
  list.innerHTML = `<p class="dim">${esc(t("Reading the journal…"))}</p>`;
  if (!$("recall-dialog").open) $("recall-dialog").showModal();
  $("recall-earlier").hidden = true;
  let answer;
  try {
    const response = await fetch("/api/recall" + query);
    answer = await response.json();
  } catch (err) {
    answer = { ok: false, message: t("the table did not answer (connection lost)") };
  }
  if (!answer.ok) {
    list.innerHTML = `<p class="error">${esc(answer.message)}</p>`;
    return;
  }
  list.innerHTML = answer.rounds.length
    ? answer.rounds.slice().reverse().map(recallRoundHtml).join("") : `<p class="dim">${esc(t("No rounds yet"))}</p>`;
  const oldest = answer.rounds.length ? answer.rounds[0].id : 0;
  $("recall-earlier").hidden = oldest <= 1;
  $("recall-earlier").dataset.before = String(oldest);
}

$("recall-earlier").addEventListener("click", () => showRecall(`?before=${$("recall-earlier").dataset.before}`));
$("recall-digits").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b) return;
  const entry = $("recall-number");
  if (b.dataset.key === "back") entry.value = entry.value.slice(0, -1);
  else if (b.dataset.key === "show") { if (entry.value) showRecall(`?round=${encodeURIComponent(entry.value)}`); }
  else if (entry.value.length < 9) entry.value += b.textContent;
});

$("recall-open").addEventListener("click", () => {
  if (!$("recall-open").disabled) showRecall();
});
