// The pit's page: draws the floor's view pushed by the server (server-sent events) and posts a
// group's linked jackpot values with a supervisor's PIN. It holds no state of its own.
"use strict";

const LEVELS = ["mega", "major", "minor"];

function dollars(cents) {
  return "$" + (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

function drawFloor(view) {
  const floor = document.getElementById("floor");
  floor.textContent = view.floor === "up" ? "floor database: up" : "floor database: " + view.floor;
  floor.className = "floor " + (view.floor === "up" ? "up" : "down");

  const tables = document.getElementById("tables");
  tables.replaceChildren(...view.tables.map((t) => {
    const card = el("article", { class: "table", "data-table": t.id },
      el("h2", {}, t.id),
      el("div", { class: "state" }, `${t.state || "no state yet"}${t.round ? ", round " + t.round : ""}`),
      el("div", { class: "heard" }, `group ${t.group || "none"}; ${t.records} records, last ${t.last_heard || "never"}`));
    const devices = Object.entries(t.devices || {});
    card.append(el("div", { class: "devices" }, ...(devices.length ? devices.map(([role, d]) =>
      el("span", { class: "device " + (d.online ? "up" : "down"), "data-device": role, title: "since " + d.since },
        `${role} ${d.online ? "online" : "offline"}`)) : ["devices: not heard from yet"])));
    if (t.jackpot_pending.length) {
      card.append(el("div", { class: "pending" }, "JACKPOT PENDING: " + t.jackpot_pending.map((l) => l.toUpperCase()).join(", ")));
    }
    for (const a of t.alerts) card.append(el("div", { class: "alert" }, `${a.message}`));
    return card;
  }));

  const pending = document.getElementById("pending");
  pending.replaceChildren(...(view.pending.length ? [el("h2", {}, "Pending hits")] : []),
    ...view.pending.map((p) => el("div", { class: "claim", "data-claim": `${p.table}/${p.round}/${p.level}` },
      `${p.level.toUpperCase()} (group ${p.group}) #${p.order}: table ${p.table}, round ${p.round}, position ` +
      `${p.position}: ${dollars(p.amount)} (${p.winners} winner${p.winners > 1 ? "s" : ""}` +
      `${p.final ? ", final" : ", waiting for every table to take the lock"})`)));

  const groups = document.getElementById("groups");
  for (const [id, levels] of Object.entries(view.groups)) {
    let box = groups.querySelector(`[data-group="${CSS.escape(id)}"]`);
    if (!box) {
      box = el("div", { class: "group", "data-group": id }, el("h2", {}, "Jackpot group " + id), el("div", { class: "values" }));
      box.append(postingForm(id));
      groups.append(box);
    }
    box.querySelector(".values").textContent = LEVELS.map((l) => levels[l]
      ? `${l.toUpperCase()} ${dollars(levels[l].value)}${levels[l].state === "pending" ? " (PENDING)" : ""}` : "").join("   ");
  }
}

function postingForm(group) {
  const form = el("form", { "data-post": group });
  for (const l of LEVELS) form.append(el("label", {}, l.toUpperCase() + " $", el("input", { name: l, inputmode: "decimal", size: "10" })));
  form.append(el("label", {}, "reason", el("input", { name: "reason", size: "20" })));
  form.append(el("label", {}, "supervisor PIN", el("input", { name: "pin", type: "password", inputmode: "numeric", size: "8" })));
  form.append(el("button", { type: "submit" }, "Post values"), el("span", { class: "verdict" }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const verdict = form.querySelector(".verdict");
    const data = new FormData(form);
    const body = { group, reason: data.get("reason"), pin: data.get("pin") };
    for (const l of LEVELS) body[l] = Math.round(parseFloat(data.get(l)) * 100);
    try {
      const challenge = await (await fetch("/api/challenge")).json();
      body.challenge = challenge.challenge;
      const answer = await (await fetch("/api/jackpot", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      })).json();
      verdict.textContent = answer.ok ? "Posted: " + answer.message : "Refused: " + answer.message;
    } catch (err) {
      verdict.textContent = "Not sent: " + err;
    }
    form.querySelector("[name=pin]").value = "";
  });
  return form;
}

const source = new EventSource("/api/events");
source.addEventListener("snapshot", (event) => drawFloor(JSON.parse(event.data)));
source.addEventListener("error", () => {
  const floor = document.getElementById("floor");
  floor.textContent = "the pit's page is out of reach; reconnecting";
  floor.className = "floor down";
});
