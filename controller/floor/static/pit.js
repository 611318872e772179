// The pit's page: draws the floor's view pushed by the server (server-sent events), posts a
// group's linked jackpot values and closes a won generation's claims with a supervisor's PIN.
// It holds no state of its own; its forms are made once and kept while their subject is in view.
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

  drawHolding(view.holding || []);
  const unpaid = document.getElementById("unpaid");
  unpaid.replaceChildren(...((view.unpaid || []).length ? [el("h2", {}, "Linked hits the floor's split does not pay")] : []),
    ...(view.unpaid || []).map((h) => el("div", { class: "hit " + h.state, "data-hit": `${h.table}/${h.round}/${h.level}` },
      `${h.level.toUpperCase()} (group ${h.group}, generation ${h.generation}): table ${h.table}, round ${h.round}, ` +
      `position ${h.position}, bet ${dollars(h.bet)}: ` + ({
        referred: `OWED by the floor's decision: settled at the table without the award by the ${h.referred_by} ` +
                  `(${h.reason}); the floor refused: ${h.refused}`,
        disputed: `DISPUTED: claimed on the floor and settled at the table without it by the ${h.referred_by}`,
        unclaimed: "not claimed yet (the table is cut off, or its claim waits)",
      }[h.state] || h.state))));

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

// A won generation whose split waits for tables that have not taken the lock: who it waits for,
// and a form to close its claims (kept across redraws while the generation still waits).
function drawHolding(holding) {
  const box = document.getElementById("holding");
  const keys = new Set(holding.map((h) => `${h.group}/${h.level}/${h.generation}`));
  for (const old of box.querySelectorAll("[data-holding]")) if (!keys.has(old.dataset.holding)) old.remove();
  for (const h of holding) {
    const key = `${h.group}/${h.level}/${h.generation}`;
    let item = box.querySelector(`[data-holding="${CSS.escape(key)}"]`);
    if (!item) {
      item = el("div", { class: "holding", "data-holding": key }, el("div", { class: "waits" }),
        supervisorForm(`close-${key}`, [el("label", {}, el("input", { name: "confirm", type: "checkbox" }),
          "a win these tables claim later is refused and held on the floor as owed")], "Close the claims",
          "/api/close-claims", (data) => ({ group: h.group, level: h.level, generation: h.generation,
            confirm: data.get("confirm") === "on" }), "Closed: "));
      box.append(item);
    }
    item.querySelector(".waits").textContent = `${h.level.toUpperCase()} (group ${h.group}) generation ` +
      `${h.generation}: the split waits for table(s) ${h.tables.join(", ")} to take the lock`;
  }
}

function postingForm(group) {
  const fields = LEVELS.map((l) => el("label", {}, l.toUpperCase() + " $", el("input", { name: l, inputmode: "decimal", size: "10" })));
  return supervisorForm(group, fields, "Post values", "/api/jackpot", (data) => {
    const body = { group };
    for (const l of LEVELS) body[l] = Math.round(parseFloat(data.get(l)) * 100);
    return body;
  }, "Posted: ");
}

// A supervisor's form: its own fields, a reason and a PIN; each send takes a one-time challenge.
function supervisorForm(name, fields, label, url, makeBody, done) {
  const form = el("form", { "data-post": name }, ...fields);
  form.append(el("label", {}, "reason", el("input", { name: "reason", size: "20" })));
  form.append(el("label", {}, "supervisor PIN", el("input", { name: "pin", type: "password", inputmode: "numeric", size: "8" })));
  form.append(el("button", { type: "submit" }, label), el("span", { class: "verdict" }));
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

const source = new EventSource("/api/events");
source.addEventListener("snapshot", (event) => drawFloor(JSON.parse(event.data)));
source.addEventListener("error", () => {
  const floor = document.getElementById("floor");
  floor.textContent = "the pit's page is out of reach; reconnecting";
  floor.className = "floor down";
});
