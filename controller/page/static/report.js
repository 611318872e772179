// The supervisor's report page: a PIN-checked request for the report (POST /api/report with a
// one-time challenge from GET /api/challenge), whose HTML, inline SVG charts included, is drawn
// by the controller in this screen's language (the lang cookie, as on the dealer's page; its times
// in the table's time zone). Touch only: the PIN is typed on the keypad, the shift chosen from the
// table's shifts (GET /api/report/shifts). Nothing is kept: the PIN is emptied once it is sent.
"use strict";

const $ = (id) => document.getElementById(id);
const fill = (text, values) => text.replace(/\{(\w+)\}/g,
  (whole, name) => (values && name in values ? String(values[name]) : whole));
const t = (id, values) => fill(WORDS[id] || id, values);

// the page's own words (data-t, data-t-ATTR), as on the dealer's page
document.documentElement.lang = LANGUAGE;
for (const el of document.querySelectorAll("[data-t]")) {
  for (const node of el.childNodes) {
    if (node.nodeType === Node.TEXT_NODE && node.textContent.trim()) {
      const text = node.textContent;
      node.textContent = text.match(/^\s*/)[0] + t(text.trim().replace(/\s+/g, " ")) + text.match(/\s*$/)[0];
    }
  }
}
for (const attr of ["title", "placeholder", "aria-label"]) {
  for (const el of document.querySelectorAll(`[data-t-${attr}]`)) el.setAttribute(attr, t(el.getAttribute(attr)));
}

// this screen's language, chosen here (a cookie of this browser: the dealer's screen keeps its own)
const LANGUAGE_NAMES = { en: "English", es: "Español" };
const other = LANGUAGES[(LANGUAGES.indexOf(LANGUAGE) + 1) % LANGUAGES.length];
$("language").textContent = LANGUAGE_NAMES[other] || other;
$("language").lang = other;
$("language").addEventListener("click", () => {
  document.cookie = `lang=${encodeURIComponent(other)}; path=/; max-age=31536000; samesite=strict`;
  location.reload();
});

$("keypad").addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (!b) return;
  const pin = $("pin");
  if (b.dataset.key === "clear") pin.value = "";
  else if (b.dataset.key === "back") pin.value = pin.value.slice(0, -1);
  else if (pin.value.length < 12) pin.value += b.textContent;
});

let shift = "";
$("shifts").addEventListener("click", (e) => {
  const b = e.target.closest("button[data-shift]");
  if (!b) return;
  shift = b.dataset.shift;
  for (const other of $("shifts").querySelectorAll("button")) other.classList.toggle("chosen", other === b);
});
fetch("/api/report/shifts").then((r) => r.json()).then((answer) => {
  for (const name of (answer.ok && answer.shifts) || []) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.shift = name;
    b.textContent = name;
    $("shifts").append(b);
  }
}).catch(() => {});

async function challenge() {
  const answer = await (await fetch("/api/challenge", { cache: "no-store" })).json();
  return answer.ok ? answer.challenge : "";
}

$("ask").addEventListener("submit", async (e) => {
  e.preventDefault();
  const body = { role: $("role").value, pin: $("pin").value, challenge: await challenge() };
  if ($("day").value) body.day = $("day").value;
  if (shift) body.shift = shift;
  $("pin").value = "";
  $("message").textContent = t("Reading the journal…");
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
    $("message").textContent = t("the table did not answer (connection lost)");
    document.body.dataset.report = "refused";
  }
});

$("print").addEventListener("click", () => window.print());
