// The pages: /_sandbox (verifications with their status history as a timeline, and every webhook
// delivery, refreshing by itself) and the one-message page (the hosted form itself is form.ts). Static HTML
// with a small script; everything shown is escaped.
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export const PAGE_STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d232a;background:#fafafa}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}table{border-collapse:collapse;width:100%;background:#fff}
td,th{border:1px solid #d8dde3;padding:4px 8px;text-align:left;vertical-align:top}th{background:#eef1f4}
.tl{display:flex;flex-wrap:wrap;gap:4px}.st{border-radius:10px;padding:1px 8px;font-size:12px;background:#e3e8ee}
.verified{background:#cdebd3}.rejected{background:#f6d0d0}.pending{background:#fdf0c4}.info{background:#d3e3f8}.removed{background:#ddd}
.delivered{color:#1b6e33}.failed{color:#a11}.queued{color:#8a6d00}code{font-size:12px}form label{display:block;margin:6px 0}
input{font:inherit;padding:3px 6px;width:320px}`;

export function messagePage(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`;
}

/** The /_sandbox page; `authFailureStatus`: the status the sandbox refuses credentials with (sandbox.yaml choices.authFailure). */
export function sandboxPage(authFailureStatus: number): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>verispec sandbox</title><style>${PAGE_STYLE}</style></head>
<body><h1>verispec sandbox</h1><p id="clock"></p><p id="problem" role="alert" class="failed" hidden></p>
<form method="get" action="/_sandbox" id="filter"><label>trace <input name="trace"></label><label>userId <input name="userId"></label><label>status <input name="status"></label><button type="submit">Filter</button> <a href="/_sandbox">all</a></form>
<h2>Verifications</h2><table id="verifications"><thead><tr><th>trace</th><th>type</th><th>name</th><th>status</th><th>attempt</th><th>timeline</th></tr></thead><tbody></tbody></table><p><a id="next" hidden>Older verifications</a></p>
<h2>Webhook deliveries</h2><table id="deliveries"><thead><tr><th>time</th><th>deliveryId</th><th>trace</th><th>status</th><th>signature</th><th>receiver</th><th>answer</th><th>retries</th></tr></thead><tbody></tbody></table>
<script>
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
const time = (ms) => new Date(ms).toISOString().replace("T", " ").replace("Z", "");
const problem = document.getElementById("problem");
// A failed read is said on the page, never left as empty tables.
const fail = (text) => { problem.textContent = text + " The tables show the last state read; the page tries again every second."; problem.hidden = false; };
async function refresh() {
  let r;
  // From the origin, not a relative URL: a page opened as http://uid:secret@host/_sandbox has the
  // credentials in its base URL, and fetch refuses a URL holding credentials; the browser sends the
  // credentials the page was opened with to its own origin.
  try { r = await fetch(location.origin + "/_sandbox/state" + location.search, { credentials: "same-origin", cache: "no-store" }); }
  catch (e) { return fail("Could not reach the sandbox (" + (e && e.message || e) + ")."); }
  if (!r.ok) return fail(r.status === ${JSON.stringify(authFailureStatus)} ? "The sandbox refused the credentials (HTTP " + r.status + "): reload the page and give the service UID and secret it was started with." : "Could not read the sandbox's state (HTTP " + r.status + ").");
  let s;
  try { s = await r.json(); } catch (e) { return fail("The sandbox's state was not JSON."); }
  problem.hidden = true;
  const next = document.getElementById("next");
  const q = new URLSearchParams(location.search);
  if (s.nextCursor) { q.set("cursor", s.nextCursor); next.href = location.origin + "/_sandbox?" + q; }
  next.hidden = !s.nextCursor;
  document.getElementById("clock").textContent = "Sandbox time " + time(s.now) + (s.clockOffsetMs ? " (advanced " + s.clockOffsetMs + " ms)" : "");
  document.querySelector("#verifications tbody").innerHTML = s.verifications.map((v) =>
    "<tr data-trace='" + esc(v.trace) + "'><td><code>" + esc(v.trace) + "</code>" + (v.parentTrace ? "<br>stakeholder of <code>" + esc(v.parentTrace) + "</code>" : "") +
    "</td><td>" + esc(v.type) + " " + esc(v.subType ?? "") + " (" + esc(v.api) + ")</td><td>" + esc(v.name) + "</td><td><span class='st " + esc(v.verificationStatus) + "'>" +
    esc(v.verificationStatus) + "</span> " + esc(v.submissionStatus) + "</td><td>" + esc(v.attempt) + (v.maxAttempts ? " / " + esc(v.maxAttempts) : "") +
    "</td><td><div class='tl'>" + v.history.map((h) => "<span class='st " + esc(h.verification_status) + "' title='" + esc(h.trigger) + "'>" + esc(h.verification_status) +
    " " + esc(time(Number(h.at)).slice(11)) + "</span>").join("→") + "</div></td></tr>").join("");
  document.querySelector("#deliveries tbody").innerHTML = s.deliveries.map((d) =>
    "<tr data-delivery='" + esc(d.deliveryId) + "'><td>" + esc(time(d.timestamp)) + "</td><td><code>" + esc(d.deliveryId) + "</code>" + (d.resend ? " (re-send)" : "") +
    "</td><td><code>" + esc(d.trace) + "</code></td><td>" + esc(d.payload.verificationStatus) + "</td><td>v" + esc(d.signatureVersion) + "</td><td>" + esc(d.url ?? "(no receiver)") +
    "</td><td class='" + esc(d.state) + "'>" + esc(d.state) + (d.lastStatus ? " " + esc(d.lastStatus) : "") + (d.lastError ? " " + esc(d.lastError) : "") +
    "</td><td>" + esc(Math.max(0, d.tries - 1)) + "</td></tr>").join("");
}
for (const [k, v] of new URLSearchParams(location.search)) { const i = document.querySelector("#filter [name='" + k + "']"); if (i) i.value = v; }
refresh(); setInterval(refresh, 1000);
</script></body></html>`;
}
