// The pit's supervisor forms (posting a group's values, closing a won generation's claims), each
// folded away under a <details> until asked for, so the tables are on the first screen. A form
// takes a reason and a PIN; each send takes a one-time challenge. Used by pit.js.
"use strict";

const LEVEL_NAMES = ["mega", "major", "minor"];

function formEl(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

// folded: the summary line says what it does; the form shows when the summary is clicked
function folded(summary, form) {
  return formEl("details", { class: "fold" }, formEl("summary", {}, summary), form);
}

function postingForm(group) {
  const fields = LEVEL_NAMES.map((l) => formEl("label", {}, l.toUpperCase() + " $",
    formEl("input", { name: l, inputmode: "decimal", size: "10" })));
  return folded("Post new values…", supervisorForm(group, fields, "Post values", "/api/jackpot", (data) => {
    const body = { group };
    for (const l of LEVEL_NAMES) body[l] = Math.round(parseFloat(data.get(l)) * 100);
    return body;
  }, "Posted: "));
}

function closeForm(h, key) {
  return folded("Close the claims…", supervisorForm(`close-${key}`, [formEl("label", { class: "wide" },
    formEl("input", { name: "confirm", type: "checkbox" }),
    "a win these tables claim later is refused and held on the floor as owed")], "Close the claims",
  "/api/close-claims", (data) => ({ group: h.group, level: h.level, generation: h.generation,
    confirm: data.get("confirm") === "on" }), "Closed: "));
}

function supervisorForm(name, fields, label, url, makeBody, done) {
  const form = formEl("form", { "data-post": name }, ...fields);
  form.append(formEl("label", {}, "reason", formEl("input", { name: "reason", size: "20" })));
  form.append(formEl("label", {}, "supervisor PIN",
    formEl("input", { name: "pin", type: "password", inputmode: "numeric", size: "8" })));
  form.append(formEl("button", { type: "submit" }, label), formEl("span", { class: "verdict" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const verdict = form.querySelector(".verdict");
    const data = new FormData(form);
    const body = Object.assign(makeBody(data), { reason: data.get("reason"), pin: data.get("pin") });
    try {
      const challenge = await (await fetch("/api/challenge")).json();
      body.challenge = challenge.challenge;
      const answer = await (await fetch(url, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      })).json();
      verdict.textContent = answer.ok ? done + answer.message : "Refused: " + answer.message;
    } catch (err) {
      verdict.textContent = "Not sent: " + err;
    }
    form.querySelector("[name=pin]").value = "";
  });
  return form;
}
