// Who is dealing (issue 31, item 13): the header names the dealer signed in; one touch on it opens the
// sign-in, where the dealer taking the table enters their own PIN on the keypad (the table names them
// from it). Signing in and out is between rounds only: touched mid-round, the table says why not.
// A table whose dealers have no PINs (page.dealer_sign_in = false) shows none of it.
"use strict";

function renderShift(s) {
  const button = $("on-duty");
  const shift = s.shift || { sign_in: false, dealer: null };
  button.hidden = !shift.sign_in;
  if (!shift.sign_in) return;
  button.textContent = shift.dealer ? t("Dealer: {name}", { name: shift.dealer }) : t("Dealer sign in");
  button.classList.toggle("nobody", !shift.dealer);
  // nobody dealing: signing in is the one next step (ringed as the footer's is), and the prompt that says
  // so opens it too: the header's button alone was small beside an Open betting that looked ready
  button.classList.toggle("next", awaitingDealer(s));
  $("prompt").classList.toggle("opens-sign-in", awaitingDealer(s));
  button.title = shift.since ? t("Signed in at {time}", { time: clock(shift.since) }) : "";
}

// nobody dealing where dealers sign in: signing in is the one next step (page.js rings no footer
// button meanwhile); a halted table offers nothing
function awaitingDealer(s) {
  return Boolean(s.shift && s.shift.sign_in && !s.shift.dealer && !s.halted);
}

$("prompt").addEventListener("click", () => {
  if ($("prompt").classList.contains("opens-sign-in")) $("on-duty").click();
});

$("on-duty").addEventListener("click", () => {
  if (!snap || !linkIsUp) {
    toast(notNow(""), "info");
    return;
  }
  if (!snap.actions.includes("sign_in_dealer")) {
    toast(t("The dealer changes between rounds: {why}", { why: stateWords(snap.state) }), "info");
    return;
  }
  const dealer = snap.shift && snap.shift.dealer;
  $("shift-who").textContent = dealer ? t("Dealing now: {name}", { name: dealer }) : t("No dealer is signed in");
  for (const id of ["shift-out", "shift-out-words", "shift-out-supervisor"]) $(id).hidden = !dealer;
  $("shift-pin").value = "";
  $("shift-error").textContent = "";
  $("shift-dialog").showModal();
  askChallenge();
});

$("shift-keypad").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (b) $("shift-pin").value = typed($("shift-pin").value, b.dataset.key || b.textContent, false);
});

$("shift-submit").addEventListener("click", async () => {
  const body = { action: "sign_in_dealer", role: "dealer", pin: $("shift-pin").value,
                 challenge: await useChallenge() };
  const answer = await send(body);
  $("shift-pin").value = "";
  if (answer.ok) {
    $("shift-dialog").close();
    toast(t("Dealer signed in"), true);     // the header names them from the next snapshot
  } else {
    $("shift-error").textContent = answer.message;
    askChallenge();               // the next try needs a fresh one, whatever was refused
  }
});

// Signing out takes a PIN (the dealer on duty's own, or a supervisor's): typed on the keypad first.
async function signOut(role) {
  const body = { action: "sign_out_dealer", role: role, pin: $("shift-pin").value,
                 challenge: await useChallenge() };
  const answer = await send(body);
  $("shift-pin").value = "";
  if (answer.ok) {
    $("shift-dialog").close();
    toast(t("Signed out: betting opens once a dealer signs in"), true);
  } else {
    $("shift-error").textContent = answer.message;
    askChallenge();
  }
}

$("shift-out").addEventListener("click", () => signOut("dealer"));
$("shift-out-supervisor").addEventListener("click", () => signOut("supervisor"));
