// A finished round replayed step by step (GET /api/replay?round=N), inside the recall dialog: a
// slider and big step buttons move through the round's facts; at each step the felt's wagers, the
// cards out of the shoe, the decisions and payments as they stood, the time in the table's clock
// (the browser's local time), and at the end the round settled again from its recalled cards and wagers.
"use strict";

const REPLAY_SPOTS = [["ante", t("Ante")], ["pair_plus", t("Pair Plus")], ["six_card_bonus", t("6 Card Bonus")],
                      ["super6", t("Super 6")]];
let replayStory = null;

function replayFeltHtml(step) {
  const positions = [...new Set([...Object.keys(step.felt), ...Object.keys(step.cards)])]
    .filter((p) => p !== "dealer").sort((a, b) => a - b);
  if (!positions.length) return `<p class="dim">${esc(t("no wagers"))}</p>`;
  const rows = positions.map((p) => {
    const felt = step.felt[p] || {};
    const decision = step.decisions[p] === "play" ? t("Plays") : step.decisions[p] === "fold" ? t("Folds") : "—";
    const paid = p in step.paid ? money(step.paid[p]) : "—";
    return `<tr><td>${esc(p)}</td>${REPLAY_SPOTS.map(([key]) => `<td>${felt[key] ? money(felt[key]) : "—"}</td>`).join("")}
      <td class="cards small">${step.cards[p] ? cardsHtml(step.cards[p]) : "—"}</td><td>${esc(decision)}</td>
      <td class="net">${paid}</td></tr>`;
  }).join("");
  return `<table><thead><tr><th>${esc(t("Position"))}</th>${REPLAY_SPOTS.map(([, name]) => `<th>${esc(name)}</th>`).join("")}
    <th>${esc(t("Cards"))}</th><th>${esc(t("Decision"))}</th><th>${esc(t("Net"))}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function replayCheckHtml(check) {
  if (check.settled_again === null) return `<p class="dim">${esc(t("Nothing to settle again: the round was not settled"))}</p>`;
  if (check.settled_again) return `<p class="check-ok">${esc(t("Settled again from the cards and wagers: every position agrees"))}</p>`;
  return `<p class="error">${esc(t("Settled again, it does NOT agree:"))} ${esc(check.differences.join("; "))}</p>`;
}

function showReplayStep(index) {
  const story = replayStory;
  const last = story.steps.length - 1;
  const i = Math.max(0, Math.min(last, index));
  const step = story.steps[i];
  $("replay-slider").value = String(i);
  $("replay-where").textContent = t("Step {step} of {steps}", { step: i + 1, steps: last + 1 });
  $("replay-time").textContent = localTime(step.at);
  $("replay-time").setAttribute("datetime", step.at);
  $("replay-words").textContent = step.words;
  $("replay-state").textContent = stateWords(step.state);
  $("replay-dealer").innerHTML = step.cards.dealer ? cardsHtml(step.cards.dealer) : `<span class="dim">—</span>`;
  $("replay-felt").innerHTML = replayFeltHtml(step);
  $("replay-check").innerHTML = i === last ? replayCheckHtml(story.check) : "";
  $("replay-first").disabled = $("replay-back").disabled = i === 0;
  $("replay-next").disabled = $("replay-last").disabled = i === last;
}

async function showReplay(round) {
  $("recall-list").hidden = true;
  $("replay-view").hidden = false;
  $("replay-title").textContent = t("Round {round}", { round });
  $("replay-words").textContent = t("Reading the journal…");
  let answer;
  try {
    answer = await (await fetch(`/api/replay?round=${encodeURIComponent(round)}`)).json();
  } catch (err) {
    answer = { ok: false, message: t("the table did not answer (connection lost)") };
  }
  if (!answer.ok) {
    $("replay-words").textContent = answer.message;
    return;
  }
  replayStory = answer;
  if (answer.dealt_by) {
    $("replay-title").textContent = t("Round {round}", { round }) + " · " + t("dealt by {name}", { name: answer.dealt_by });
  }
  $("replay-slider").max = String(answer.steps.length - 1);
  showReplayStep(0);
}

function closeReplay() {
  $("replay-view").hidden = true;
  $("recall-list").hidden = false;
}

$("replay-slider").addEventListener("input", () => showReplayStep(Number($("replay-slider").value)));
$("replay-first").addEventListener("click", () => showReplayStep(0));
$("replay-back").addEventListener("click", () => showReplayStep(Number($("replay-slider").value) - 1));
$("replay-next").addEventListener("click", () => showReplayStep(Number($("replay-slider").value) + 1));
$("replay-last").addEventListener("click", () => showReplayStep(Infinity));
$("replay-close").addEventListener("click", closeReplay);
$("recall-list").addEventListener("click", (event) => {
  const button = event.target.closest("button.replay");
  if (button) showReplay(button.dataset.round);
});
