// A table's finished round replayed from the floor (GET /api/replay?table=ID&round=N): the same
// steps as the table's own replay, a slider and step buttons, the felt and cards as they stood at
// each step, the times in this browser's local time, the independent settlement check at the end.
"use strict";

let story = null;
const SPOT_NAMES = [["ante", "Ante"], ["pair_plus", "Pair Plus"], ["six_card_bonus", "6 Card Bonus"], ["super6", "Super 6"]];
const $r = (id) => document.getElementById(id);

function feltTable(step) {
  const positions = [...new Set([...Object.keys(step.felt), ...Object.keys(step.cards)])]
    .filter((p) => p !== "dealer").sort((a, b) => a - b);
  const head = el("tr", {}, el("th", {}, "Position"), ...SPOT_NAMES.map(([, n]) => el("th", {}, n)),
    el("th", {}, "Cards"), el("th", {}, "Decision"), el("th", {}, "Net"));
  const rows = positions.map((p) => el("tr", { "data-position": p }, el("td", {}, p),
    ...SPOT_NAMES.map(([k]) => el("td", {}, (step.felt[p] || {})[k] ? dollars(step.felt[p][k]) : "—")),
    el("td", { class: "cards" }, step.cards[p] || "—"), el("td", {}, step.decisions[p] || "—"),
    el("td", {}, p in step.paid ? dollars(step.paid[p]) : "—")));
  const dealer = el("p", {}, "Dealer: " + (step.cards.dealer || "—"));
  return [dealer, el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows))];
}

function showStep(index) {
  const last = story.steps.length - 1;
  const i = Math.max(0, Math.min(last, index));
  const step = story.steps[i];
  $r("replay-slider").value = String(i);
  $r("replay-where").textContent = `${story.table} round ${story.round}: step ${i + 1} of ${last + 1}`;
  $r("replay-time").textContent = localTime(step.at);
  $r("replay-time").setAttribute("datetime", step.at);
  $r("replay-state").textContent = step.state;
  $r("replay-words").textContent = step.words;
  $r("replay-felt").replaceChildren(...feltTable(step));
  const check = story.check;
  $r("replay-check").textContent = i !== last ? "" : check.settled_again === null ? `Nothing to settle again: ${check.why}`
    : check.settled_again ? "Settled again from the cards and wagers: every position agrees"
      : "Settled again, it does NOT agree: " + check.differences.join("; ");
  $r("replay-first").disabled = $r("replay-back").disabled = i === 0;
  $r("replay-next").disabled = $r("replay-last").disabled = i === last;
}

async function ask(event) {
  event.preventDefault();
  const table = $r("replay-table").value.trim();
  const round = $r("replay-round").value.trim();
  $r("replay-view").hidden = true;
  $r("replay-said").textContent = "Reading the floor…";
  let answer;
  try {
    answer = await (await fetch(`/api/replay?table=${encodeURIComponent(table)}&round=${encodeURIComponent(round)}`)).json();
  } catch (err) {
    answer = { ok: false, message: "the pit's page did not answer (connection lost)" };
  }
  if (!answer.ok) {
    $r("replay-said").textContent = answer.message;
    return;
  }
  story = answer;
  $r("replay-said").textContent = "";
  $r("replay-slider").max = String(story.steps.length - 1);
  $r("replay-view").hidden = false;
  showStep(0);
}

$r("replay-open").addEventListener("click", () => {
  const tables = (lastView ? lastView.tables : []).map((t) => t.id).sort();
  $r("replay-tables").replaceChildren(...tables.map((id) => el("option", { value: id })));
  $r("replay-dialog").showModal();
});
$r("replay-close").addEventListener("click", () => $r("replay-dialog").close());
$r("replay-ask").addEventListener("submit", ask);
$r("replay-slider").addEventListener("input", () => showStep(Number($r("replay-slider").value)));
$r("replay-first").addEventListener("click", () => showStep(0));
$r("replay-back").addEventListener("click", () => showStep(Number($r("replay-slider").value) - 1));
$r("replay-next").addEventListener("click", () => showStep(Number($r("replay-slider").value) + 1));
$r("replay-last").addEventListener("click", () => showStep(Infinity));
