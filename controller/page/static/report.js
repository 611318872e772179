// The supervisor's report page: a PIN-checked request for the report (POST /api/report with a
// one-time challenge from GET /api/challenge), whose HTML, inline SVG charts included, is drawn
// by the controller. Nothing is kept: the PIN field is emptied once the request is sent.
"use strict";

const $ = (id) => document.getElementById(id);

async function challenge() {
  const answer = await (await fetch("/api/challenge", { cache: "no-store" })).json();
  return answer.ok ? answer.challenge : "";
}

$("ask").addEventListener("submit", async (e) => {
  e.preventDefault();
  const body = { role: $("role").value, pin: $("pin").value, challenge: await challenge() };
  if ($("day").value) body.day = $("day").value;
  if ($("shift").value.trim()) body.shift = $("shift").value.trim();
  $("pin").value = "";
  $("message").textContent = "Reading the journal…";
  document.body.dataset.report = "asked";
  try {
    const r = await fetch("/api/report", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const answer = await r.json();
    if (!answer.ok) {
      $("message").textContent = answer.message;
      document.body.dataset.report = "refused";
      return;
    }
    $("report").innerHTML = answer.html;     // the controller's own HTML and SVG, escaped there
    $("message").textContent = "";
    $("print").disabled = false;
    document.body.dataset.report = "shown";
  } catch (err) {
    $("message").textContent = "The table did not answer: " + err;
    document.body.dataset.report = "refused";
  }
});

$("print").addEventListener("click", () => window.print());
