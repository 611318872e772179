// The dealer's touches: each is posted to /api/action and the table's verdict is shown (done, or
// refused with its reason). A button the table does not offer now looks disabled and, touched,
// says why; an offered one is posted even when it looks disabled, and the table says why not.
"use strict";

async function send(body) {
  let answer;
  try {
    const response = await fetch("/api/action", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    answer = await response.json();
    answer.status = response.status;
  } catch (err) {
    answer = { ok: false, message: t("the table did not answer (connection lost)"), status: 0 };
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
  const box = $("toast");
  box.textContent = message;
  box.className = "toast" + (ok === true ? " ok" : ok === "info" ? " info" : "");
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 6000);
}

// why an action cannot be touched now ("" when the table offers it)
function notNow(action) {
  if (!snap || !linkIsUp) return t("Not now: the page is not connected to the table");
  if (snap.halted) return t("The table has stopped: {why}", { why: snap.halted });
  return snap.actions.includes(action) ? "" : t("Not now: {why}", { why: stateWords(snap.state) });
}

document.addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b || b.disabled || b.closest("dialog")) return;
  const action = b.dataset.posAction || b.dataset.action;
  if (!action) return;
  const why = notNow(action);
  if (why) {
    toast(why, "info");
  } else if (b.dataset.posAction) {
    act({ action, position: Number(b.dataset.position) });
  } else if (action === "misdeal") {
    askMisdeal();
  } else if (action === "call_supervisor") {
    act({ action }).then((a) => a.ok && toast(t("Supervisor called"), true));
  } else {
    act({ action });
  }
});

// A misdeal voids the round: the reason is chosen, then confirmed with a second touch (a slip of the
// finger on a reason must not void a round of six players)
let misdealReason = "";

function askMisdeal() {
  misdealReason = "";
  $("misdeal-reasons").hidden = false;
  $("misdeal-confirm").hidden = true;
  $("misdeal-dialog").showModal();
}

$("misdeal-reasons").addEventListener("click", (e) => {
  const b = e.target.closest("button[data-reason]");
  if (!b) return;
  misdealReason = b.dataset.reason;
  $("misdeal-question").textContent = t("Void round {round} for “{reason}”? Every hand is void and every wager is returned.",
    { round: snap ? snap.round : "", reason: b.textContent });
  $("misdeal-reasons").hidden = true;
  $("misdeal-confirm").hidden = false;
});
$("misdeal-back").addEventListener("click", () => { $("misdeal-reasons").hidden = false; $("misdeal-confirm").hidden = true; });

$("misdeal-dialog").addEventListener("close", () => {
  const confirmed = $("misdeal-dialog").returnValue === "confirm";
  if (confirmed && misdealReason) act({ action: "misdeal", reason: misdealReason });
  misdealReason = "";
});

// --- the supervisor's dialog -------------------------------------------------------------------

let supAction = null;
// what a supervisor's action did, as a person says it
const DONE = {
  void_round: t("The round is void: return every wager"),
  override_wager: t("The spot's reading is overridden"),
  reset_meters: t("The meters are reset"),
  verify_jackpot: t("The jackpot hit is verified: settle the round"),
  refer_jackpot: t("Settling without the linked award"),
  set_jackpots: t("The new jackpot values are posted"),
};

// Every PIN-checked action carries a one-time challenge (GET /api/challenge): a recorded request,
// PIN included, cannot be sent again. One is asked for when the dialog opens and again after a
// refusal; each is used once, and one about to expire is replaced before it is sent.
let challenge = null;           // { value, until } (until: Date.now() ms, a margin before expiry)
let challengeAsked = null;      // the answer being waited for

function askChallenge() {
  challenge = null;
  challengeAsked = fetch("/api/challenge", { cache: "no-store" }).then((r) => r.json()).then((a) => {
    challenge = a.ok ? { value: a.challenge, until: Date.now() + (a.expires_in - 10) * 1000 } : null;
  }).catch(() => { challenge = null; });
  return challengeAsked;
}

async function useChallenge() {
  if (challengeAsked) await challengeAsked;
  if (!challenge || Date.now() > challenge.until) await askChallenge();
  const value = challenge ? challenge.value : "";
  challenge = null;
  return value;
}

// "12.50" -> 1250 cents, exactly (no floating point); NaN when it is not an amount
function cents(text) {
  const amount = text.trim().replace(/,/g, "");
  if (!/^\d+(\.\d{1,2})?$/.test(amount)) return NaN;
  const [whole, frac = ""] = amount.split(".");
  return Number(whole) * 100 + Number(frac.padEnd(2, "0"));
}

$("supervisor-menu").addEventListener("click", () => {
  if ($("supervisor-menu").disabled) return;
  if (!snap || !linkIsUp || !snap.actions.some((a) => SUPERVISOR.includes(a))) {
    toast(snap && linkIsUp ? t("Not now: {why}", { why: stateWords(snap.state) }) : notNow(""), "info");
    return;
  }
  supAction = null;
  $("sup-title").textContent = t("Supervisor");
  $("sup-choices").hidden = false;
  $("sup-fields").hidden = true;
  $("sup-error").textContent = "";
  $("sup-dialog").showModal();
  askChallenge();
});

for (const b of document.querySelectorAll("[data-sup]")) {
  b.addEventListener("click", () => {
    const why = snap ? supervisorRefusal(snap, b.dataset.sup) : t("Not now: the page is not connected to the table");
    $("sup-error").textContent = why;
    if (why) return;
    supAction = b.dataset.sup;
    $("sup-title").textContent = b.textContent;
    $("sup-choices").hidden = true;
    $("sup-fields").hidden = false;
    $("override-fields").hidden = supAction !== "override_wager";
    $("jackpot-fields").hidden = supAction !== "set_jackpots";
    $("verify-fields").hidden = supAction !== "verify_jackpot";
    const pending = (snap && snap.jackpot_pending) || [];
    $("verify-fields").innerHTML = pending.length ? pending.map((h) => esc(h.amount === null ? t(
      "{jackpot} at position {position}: {cards} — the floor states the amount",
      { jackpot: h.jackpot.toUpperCase(), position: h.seat, cards: h.cards }) : t(
      "{jackpot} at position {position}: {cards} — pay {amount}",
      { jackpot: h.jackpot.toUpperCase(), position: h.seat, cards: h.cards, amount: money(h.amount) }))).join("<br>")
      : esc(t("No jackpot hit is waiting to be verified"));
    for (const name of ["mega", "major", "minor"]) {
      $("jp-" + name).value = snap && name in snap.jackpots ? (snap.jackpots[name] / 100).toFixed(2) : "";
    }
    $("ov-position").innerHTML = (snap ? snap.positions : []).map((p) =>
      `<option value="${p.position}">${p.position}</option>`).join("");
    // while players decide a supervisor reads a Play stack; while betting, any bet spot
    $("ov-spot").value = snap && snap.state === "decisions" ? "play" : "ante";
    $("sup-reason").value = "";
    $("sup-pin").value = "";
    $("ov-amount").value = "";
    keyInto(supAction === "override_wager" ? $("ov-amount") : supAction === "set_jackpots" ? $("jp-mega") : $("sup-pin"));
  });
}

// a touchscreen has no keyboard: the usual reasons are one touch away. Shown in the page's
// language, journaled in English as every fact is (a reason typed by hand is sent as typed)
$("reasons").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (b) $("sup-reason").value = b.textContent;
});

function reasonSent(shown) {
  const chosen = [...document.querySelectorAll("#reasons [data-reason]")].find((b) => b.textContent === shown);
  return chosen ? chosen.dataset.reason : shown;
}

// The kiosk has no keyboard: one keypad types into the entry touched last (an amount, a jackpot
// value, the PIN), marked by a ring. Amounts take a point and two decimals; the PIN only digits.
let keyed = null;

function keyInto(entry) {
  keyed = entry;
  for (const e of document.querySelectorAll("#sup-dialog .keyed")) e.classList.toggle("keying", e === entry);
  $("keypad").querySelector(".point").classList.toggle("off", !entry.classList.contains("money"));
}

for (const entry of document.querySelectorAll("#sup-dialog .keyed")) {
  entry.addEventListener("focus", () => keyInto(entry));
  entry.addEventListener("click", () => keyInto(entry));
}

// the text an entry holds after a key: NaN-proof by construction (at most 12 characters, one point,
// two decimals for an amount)
function typed(value, key, money) {
  if (key === "clear") return "";
  if (key === "back") return value.slice(0, -1);
  if (key === "point") return money && !value.includes(".") ? (value || "0") + "." : value;
  if (value.length >= 12 || (money && /\.\d\d$/.test(value))) return value;
  return value + key;
}

$("keypad").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b) return;
  const entry = keyed || $("sup-pin");
  entry.value = typed(entry.value, b.dataset.key || b.textContent, entry.classList.contains("money"));
});

$("sup-submit").addEventListener("click", async () => {
  const body = { action: supAction, reason: reasonSent($("sup-reason").value.trim()), pin: $("sup-pin").value,
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
    $("sup-error").textContent = t("amounts: dollars and cents, such as 25 or 12.50");
    return;
  }
  body.challenge = await useChallenge();
  const answer = await send(body);
  $("sup-pin").value = "";
  if (answer.ok) {
    $("sup-dialog").close();
    toast(DONE[supAction] || t("Done"), true);
  } else {
    $("sup-error").textContent = answer.message;
    askChallenge();               // the next try needs a fresh one, whatever was refused
  }
});

connect();
