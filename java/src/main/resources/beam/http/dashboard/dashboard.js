// beam's dashboard: renders /api/beam/dashboard every two seconds. Plain DOM, no framework,
// no build step; every value goes in as text (textContent), never as HTML.
"use strict";

const REFRESH_MS = 2000;
const ACCELERATOR_KEYS = ["GPU", "NPU", "HPU", "TPU", "neuron_cores", "RBLN", "TTNPU", "FURIOSA", "MBLT"];
let shownLog = null;

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text === undefined || text === null ? "" : String(text);
  if (cls) td.className = cls;
  return td;
}

function fill(id, items, render) {
  const body = document.querySelector("#" + id + " tbody");
  body.replaceChildren();
  for (const item of items) render(body.insertRow(), item);
  if (items.length === 0) {
    const td = body.insertRow().insertCell();
    td.colSpan = document.querySelectorAll("#" + id + " th").length;
    td.textContent = "(none)";
    td.className = "none";
  }
}

function amount(key, v) {
  if (key === "memory" || key === "object_store_memory") return (v / 2 ** 30).toFixed(1) + " GiB";
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}

function resources(node) {
  const total = node.Resources || {}, avail = node.Available || {};
  return Object.keys(total).filter(k => !k.startsWith("node:")).sort()
    .map(k => k + " " + amount(k, total[k] - (avail[k] || 0)) + "/" + amount(k, total[k])).join(", ");
}

function versions(node) {
  const v = (node.BeamFacts || {}).versions || {};
  return Object.keys(v).sort().filter(k => v[k] !== null && v[k] !== "").map(k => k + " " + v[k]).join(", ");
}

// Every accelerator resource a node has, by kind: its device ids and vendor from the node's
// `Accelerators` (what the daemon probed or was told), else numbered; the actor holding each
// id, from the actors' `accelerator_ids` (resource -> ids); each device's utilization and
// memory from the node's `BeamTelemetry` (its vendor tool's last sample) and, where the tool
// hung or failed, what it said instead.
function accelerators(status) {
  const holders = {};
  for (const a of status.actors || []) {
    if (a.state === "DEAD") continue;
    const byResource = a.accelerator_ids || {GPU: a.gpu_ids || []};
    for (const [res, ids] of Object.entries(byResource)) {
      for (const id of ids || []) holders[a.node_id + "/" + res + "/" + id] = a.class_name + " " + a.actor_id.slice(0, 8) + " (pid " + a.pid + ")";
    }
  }
  const rows = [];
  for (const n of status.nodes || []) {
    if (!n.Alive) continue;
    const acc = n.Accelerators || {};
    const kinds = [...new Set([...Object.keys(acc),
      ...Object.keys(n.Resources || {}).filter(k => ACCELERATOR_KEYS.includes(k) || k.endsWith("_GPU"))])];
    for (const kind of kinds) {
      const a = acc[kind] || {};
      const ids = (a.ids || []).length ? a.ids
        : kind === "GPU" && (n.GpuIds || []).length ? n.GpuIds
        : Array.from({length: Math.floor((n.Resources || {})[kind] || 0)}, (_, i) => String(i));
      const vendor = [a.vendor, a.type].filter(Boolean).join(" ");
      const t = n.BeamTelemetry && n.BeamTelemetry.resource === kind ? n.BeamTelemetry : null;
      for (const id of ids) {
        const d = t ? (t.devices || []).find(x => x.index === id) : null;
        const busy = d ? (d.utilization_gpu === null ? "n/a" : d.utilization_gpu.toFixed(0) + " %") : "";
        const util = t && t.problem ? (busy ? busy + " (last good sample): " : "") + t.problem : busy;
        const memory = d ? d.memory_used_mib + " / " + d.memory_total_mib + " MiB" : "";
        rows.push({ip: n.NodeManagerAddress, kind, id, vendor, util, memory, problem: t ? t.problem : null,
                   holder: holders[n.NodeID + "/" + kind + "/" + id] || ""});
      }
    }
  }
  return rows;
}

function actorRows(status) {
  const seen = new Set(), rows = [];
  for (const a of status.actors || []) { seen.add(a.actor_id); rows.push(a); }
  for (const a of status.recent_deaths || []) if (!seen.has(a.actor_id)) rows.push(a);
  return rows;
}

function nodeIp(status, nodeId) {
  const n = (status.nodes || []).find(x => x.NodeID === nodeId);
  return n ? n.NodeManagerAddress : "";
}

function firstLine(text) {
  return (text || "").split("\n").find(l => l.startsWith("The actor is dead because")) || (text || "").split("\n")[0] || "";
}

async function showLog(actorId) {
  shownLog = actorId;
  const pre = document.getElementById("log");
  pre.hidden = false;
  pre.dataset.actor = actorId;
  // read by the node that holds the actor's files, as `ray logs actor --id` reads them
  const tail = async suffix => {
    const r = await fetch("/api/v0/logs/file?format=text&lines=50&suffix=" + suffix + "&actor_id=" + encodeURIComponent(actorId));
    return "--- last lines of actor " + actorId + " (std" + suffix + ") ---\n" + (await r.text());
  };
  const [out, err] = await Promise.all([tail("out"), tail("err")]);
  if (shownLog === actorId) pre.textContent = out + "\n" + err;
}

// On click only, never on refresh: each dump signals the process, which ends a C-level sleep early.
async function showStack(actorId) {
  const pre = document.getElementById("stack");
  pre.hidden = false;
  pre.dataset.actor = actorId;
  pre.textContent = "--- dumping the stack of actor " + actorId + " ... ---";
  const r = await fetch("/api/beam/stack?actor_id=" + encodeURIComponent(actorId));
  if (!r.ok) {
    pre.textContent = "--- no stack of actor " + actorId + ": " + (await r.text());
    return;
  }
  const lines = [];
  for (const p of (await r.json()).processes || []) {
    lines.push("--- " + p.class_name + " actor_id=" + p.actor_id + " pid=" + p.pid + " node_ip=" + p.node_ip
               + (p.call ? " call=" + p.call : "") + " ---");
    lines.push(p.stack !== undefined ? p.stack : "(no stack: " + p.error + ")");
  }
  pre.textContent = lines.length ? lines.join("\n") : "--- actor " + actorId + " has no running process ---";
}

function render(status) {
  fill("nodes", status.nodes || [], (r, n) => {
    cell(r, n.NodeManagerAddress, "mono"); cell(r, n.NodeID.slice(0, 12), "mono");
    cell(r, n.IsHead ? "head" : "worker");
    cell(r, n.Alive ? "ALIVE" : "DEAD: " + (n.DeathReasonMessage || ""), n.Alive ? "ALIVE" : "DEAD");
    cell(r, n.Alive ? resources(n) : ""); cell(r, versions(n));
  });
  fill("gpus", accelerators(status), (r, g) => {
    cell(r, g.ip, "mono"); cell(r, g.kind); cell(r, g.id); cell(r, g.vendor);
    cell(r, g.util, g.problem ? "cause" : ""); cell(r, g.memory); cell(r, g.holder || "(free)");
  });
  fill("actors", actorRows(status), (r, a) => {
    r.className = "actor"; r.dataset.actor = a.actor_id;
    r.addEventListener("click", () => showLog(a.actor_id));
    cell(r, a.class_name); cell(r, a.actor_id, "mono"); cell(r, a.state, a.state); cell(r, a.pid || "");
    cell(r, a.node_ip || "", "mono"); cell(r, a.state === "DEAD" ? firstLine(a.death_message) : a.beam_waiting_reason || "", "cause");
    const td = r.insertCell();
    if (a.pid && a.state !== "DEAD") {
      const b = document.createElement("button");
      b.className = "stack"; b.textContent = "Stack"; b.dataset.actor = a.actor_id;
      b.addEventListener("click", e => { e.stopPropagation(); showStack(a.actor_id); });
      td.appendChild(b);
    }
  });
  const longMs = status.long_call_threshold_ms || 60000;
  document.getElementById("long-hint").textContent = "Calls pending or running; those past " + (longMs / 1000)
    + " s are marked long (ray start --long-call-seconds), but vLLM's engine loop, which runs for the engine's life.";
  const longIds = new Set((status.long_calls || []).map(c => c.task_id));
  fill("calls", (status.tasks || []).filter(t => !["FINISHED", "FAILED"].includes(t.state)), (r, t) => {
    const age = t.state === "RUNNING" && t.start_time_ms ? status.time_ms - t.start_time_ms : 0;
    const long = longIds.has(t.task_id); // past the threshold and not an engine loop (views/LongCalls)
    if (long) r.className = "long";
    cell(r, t.name); cell(r, t.beam_label || ""); cell(r, t.state, t.state);
    cell(r, t.state === "RUNNING" ? (Math.max(0, age) / 1000).toFixed(0) + " s" + (long ? " (long)" : "") : "");
    cell(r, t.actor_id, "mono"); cell(r, nodeIp(status, t.node_id), "mono"); cell(r, t.worker_pid || "");
    cell(r, long ? "ray stack --actor-id " + t.actor_id : "", "mono");
  });
  fill("pending", Object.values(status.placement_groups || {}).filter(g => g.state === "PENDING"), (r, g) => {
    cell(r, g.placement_group_id, "mono"); cell(r, g.name); cell(r, JSON.stringify(Object.values(g.bundles || {})));
    cell(r, g.strategy); cell(r, (g.beam_waiting_seconds || 0).toFixed(0) + " s"); cell(r, g.beam_waiting_reason, "cause");
  });
  fill("deaths", status.recent_deaths || [], (r, d) => {
    cell(r, new Date(d.end_time_ms).toLocaleTimeString()); cell(r, d.class_name); cell(r, d.actor_id, "mono");
    cell(r, d.node_ip || "", "mono"); cell(r, firstLine(d.death_message), "cause");
  });
  document.getElementById("updated").textContent = "updated " + new Date(status.time_ms).toLocaleTimeString();
}

async function refresh() {
  try {
    const r = await fetch("/api/beam/dashboard");
    if (!r.ok) throw new Error(r.status + " " + (await r.text()));
    render(await r.json());
    if (shownLog) await showLog(shownLog);
  } catch (e) {
    document.getElementById("updated").textContent = "cannot reach the head: " + e.message;
  }
  setTimeout(refresh, REFRESH_MS);
}

refresh();
