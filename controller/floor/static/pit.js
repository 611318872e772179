// The pit's page: draws the floor's view pushed by the server (server-sent events). Read at a
// glance: the jackpot values and pending hits on top, then every table as a card marked LIVE,
// STALE (nothing heard for the page's stale time) or LINK DOWN, "heard 12 s ago" with the local
// time on hover (ticking between pushes), devices as last reported, open alerts in plain words.
// The supervisors' forms (pit-forms.js) are folded away until asked for. No state of its own.
"use strict";

const LEVELS = ["mega", "major", "minor"];
let lastView = null;
let arrived = 0;            // performance.now() when lastView arrived

function dollars(cents) {
  return "$" + (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

function ago(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

function localTime(iso) {
  return iso ? new Date(iso).toLocaleString() : "";
}

// seconds since the floor heard the table, now (the view's figure plus the time since it came)
function heardAgo(t) {
  return t.heard_ago === null ? null : t.heard_ago + (performance.now() - arrived) / 1000;
}

function tableCard(t, staleAfter) {
  const quiet = heardAgo(t);
  const stale = quiet === null || quiet > staleAfter;
  const mark = stale ? "STALE" : t.link === "down" ? "LINK DOWN" : "LIVE";
  const card = el("article", { class: "table " + mark.toLowerCase().replace(" ", "-"), "data-table": t.id },
    el("div", { class: "head" }, el("h2", {}, t.id),
      el("span", { class: "state" }, `${t.state || "no state yet"}${t.round ? ", round " + t.round : ""}`),
      el("span", { class: "mark" }, mark)),
    el("div", { class: "dealer" + (t.dealer ? "" : " none"), title: t.dealer || "" },
      t.dealer ? "dealer " + t.dealer : "no dealer signed in"),
    el("div", { class: "heard" }, el("span", { class: "ago", title: localTime(t.last_heard) },
      t.last_heard ? "heard " + ago(quiet) : "never heard"),
    ` · ${t.records} records · group ${t.group || "none"}`));
  const devices = Object.entries(t.devices || {});
  card.append(el("div", { class: "devices" }, ...(devices.length ? devices.map(([role, d]) =>
    el("span", { class: "device " + (d.online ? "up" : "down") + (stale ? " old" : ""), "data-device": role,
      title: (d.said ? d.said + "; " : "") + "since " + localTime(d.since) + (stale ? " (last report)" : "") },
    `${role} ${d.online ? "online" : "offline"}`)) : ["devices: not heard from yet"])));
  if (t.jackpot_pending.length) {
    card.append(el("div", { class: "pending" }, "JACKPOT PENDING: " + t.jackpot_pending.map((l) => l.toUpperCase()).join(", ")));
  }
  for (const a of t.alerts) {
    card.append(el("div", { class: "alert", title: `${localTime(a.at)}: ${a.said}` }, a.message));
  }
  return card;
}

function drawTables(view) {
  const staleAfter = view.stale_after || 60;
  // T2 before T10: the pit finds a table by its number
  const sorted = [...view.tables].sort((a, b) => a.id.localeCompare(b.id, undefined, { numeric: true }));
  const cards = sorted.map((t) => tableCard(t, staleAfter));
  document.getElementById("tables").replaceChildren(...cards);
  const count = (cls) => cards.filter((c) => c.classList.contains(cls)).length;
  document.getElementById("census").textContent = `${cards.length} tables: ${count("live")} live, ` +
    `${count("stale")} stale, ${count("link-down")} link down`;
}

function drawFloor(view) {
  lastView = view;
  arrived = performance.now();
  const floor = document.getElementById("floor");
  floor.textContent = view.floor === "up" ? "floor database: up" : "floor database: " + view.floor;
  floor.className = "floor " + (view.floor === "up" ? "up" : "down");
  drawTables(view);
  drawGroups(view.groups);

  const pending = document.getElementById("pending");
  pending.className = view.pending.length ? "hits" : "";
  pending.replaceChildren(...(view.pending.length ? [el("h2", {}, "Pending hits")] : []),
    ...view.pending.map((p) => el("div", { class: "claim" + (p.final ? " final" : ""), "data-claim": `${p.table}/${p.round}/${p.level}` },
      el("span", { class: "level" }, p.level.toUpperCase()), ` (group ${p.group}) #${p.order}: table ${p.table}, round ${p.round}, position ` +
      `${p.position}: `, el("span", { class: "amount" }, dollars(p.amount)), ` (${p.winners} winner${p.winners > 1 ? "s" : ""}` +
      `${p.final ? ", final" : ", waiting for every table to take the lock"})`)));

  drawHolding(view.holding || []);
  const unpaid = document.getElementById("unpaid");
  unpaid.replaceChildren(...((view.unpaid || []).length ? [el("h2", {}, "Linked hits the floor's split does not pay")] : []),
    ...(view.unpaid || []).map((h) => el("div", { class: "hit " + h.state, "data-hit": `${h.table}/${h.round}/${h.level}` },
      // a field the table's record does not give as a whole number comes as null (schema.sql floor.whole)
      `${(h.level || "unreadable").toUpperCase()} (group ${h.group}, generation ${h.generation ?? "unreadable"}): ` +
      `table ${h.table}, round ${h.round}, position ${h.position ?? "unreadable"}, ` +
      `bet ${h.bet == null ? "unreadable" : dollars(h.bet)}: ` + ({
        referred: `OWED by the floor's decision: settled at the table without the award by the ${h.referred_by} ` +
                  `(${h.reason}); the floor refused: ${h.refused}`,
        disputed: `DISPUTED: claimed on the floor and settled at the table without it by the ${h.referred_by}`,
        unclaimed: "not claimed yet (the table is cut off, or its claim waits)",
      }[h.state] || h.state))));
}

// each group's values, large; a pending level stands out; the posting form folded (kept across redraws)
function drawGroups(groups) {
  const box = document.getElementById("groups");
  for (const [id, levels] of Object.entries(groups)) {
    let card = box.querySelector(`[data-group="${CSS.escape(id)}"]`);
    if (!card) {
      card = el("div", { class: "group", "data-group": id }, el("h2", {}, "Jackpot group " + id), el("div", { class: "values" }));
      card.append(postingForm(id));
      box.append(card);
    }
    card.querySelector(".values").replaceChildren(...LEVELS.filter((l) => levels[l]).map((l) =>
      el("span", { class: "value" + (levels[l].state === "pending" ? " pending-level" : ""), "data-level": l },
        el("span", { class: "name" }, l.toUpperCase()), " ",
        levels[l].state === "pending" ? `${dollars(levels[l].value)} (PENDING)` : dollars(levels[l].value))));
  }
}

// A won generation whose split waits for tables that have not taken the lock: who it waits for,
// and a folded form to close its claims (kept across redraws while the generation still waits).
function drawHolding(holding) {
  const box = document.getElementById("holding");
  const keys = new Set(holding.map((h) => `${h.group}/${h.level}/${h.generation}`));
  for (const old of box.querySelectorAll("[data-holding]")) if (!keys.has(old.dataset.holding)) old.remove();
  for (const h of holding) {
    const key = `${h.group}/${h.level}/${h.generation}`;
    let item = box.querySelector(`[data-holding="${CSS.escape(key)}"]`);
    if (!item) {
      item = el("div", { class: "holding", "data-holding": key }, el("div", { class: "waits" }), closeForm(h, key));
      box.append(item);
    }
    item.querySelector(".waits").textContent = `${h.level.toUpperCase()} (group ${h.group}) generation ` +
      `${h.generation}: the split waits for table(s) ${h.tables.join(", ")} to take the lock`;
  }
}

const source = new EventSource("/api/events");
source.addEventListener("snapshot", (event) => drawFloor(JSON.parse(event.data)));
source.addEventListener("error", () => {
  const floor = document.getElementById("floor");
  floor.textContent = "the pit's page is out of reach; reconnecting";
  floor.className = "floor down";
});
// "12 s ago" goes on between pushes, and a table that went quiet turns stale without one
setInterval(() => { if (lastView) drawTables(lastView); }, 1000);
