// The grading page: one pair at a time, graded with a click or a key, and no grade lost silently.
//
// Every write (a grade, a cannot-judge, an undo) gets a random event id when it is made and is kept, with
// that id, in localStorage until the server acknowledges it. A failed send (no connection, a server error,
// an ended session) leaves it there and shows "NOT saved" with a Retry button (key R); a retry sends the
// same id, so the server stores the event once however often it arrives. A reload brings a pending write
// back and retries it. Documents are untrusted: they reach the page through textContent only, never as HTML.
// After a grade, focus goes to the pair, never stays on a grade button: Enter or Space must not grade the next,
// unread pair. A write refused because this page's CSRF token belongs to an earlier login (a new login in
// another tab) fetches the current session's token and is sent again, if it is still the same user.
// After each saved grade the page asks the server for the queue again and shows the pair it names next: a
// targeted effort re-ranks the queue with every grade (this assessor's or another's), and the server keeps the
// assessor on one query while its batch lasts. Until that answer arrives, grade keys are ignored (they would
// grade the pair just graded); if it never arrives, the page moves on in the order it holds. On opening (or a
// reload) the page names no pair: the server goes on from the assessor's last label, so the batch continues.
"use strict";

(() => {
  const root = document.getElementById("grading");
  if (!root) {
    return;
  }
  const $ = (id) => document.getElementById(id);
  let csrf = document.querySelector('meta[name="csrf-token"]').content;
  const qid = root.dataset.qid || null;
  const queueUrl = "/api/queue" + (qid ? `?qid=${encodeURIComponent(qid)}` : "");
  const pendingKey = "judged.pending." + root.dataset.user;
  const gradeButtons = Array.from(document.querySelectorAll("button.grade"));
  const levels = new Map(gradeButtons.map((b) => [Number(b.dataset.grade), b.querySelector("strong").textContent]));
  const cache = new Map();
  const undoable = [];
  let queue = [];
  let index = -1;
  let pending = loadPending();
  let sending = false;
  let refusedWhileSending = false;
  let advancing = false;
  let refreshes = 0;

  function uuid4() {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  function loadPending() {
    try {
      return JSON.parse(localStorage.getItem(pendingKey));
    } catch (_) {
      return null;
    }
  }

  function keepPending(write) {
    pending = write;
    if (write) {
      localStorage.setItem(pendingKey, JSON.stringify(write));
    } else {
      localStorage.removeItem(pendingKey);
    }
  }

  function setState(state, text) {
    const element = $("save-state");
    element.dataset.state = state;
    element.textContent = text;
    $("retry").hidden = state !== "unsaved";
  }

  async function call(method, url, body) {
    const options = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.headers["X-CSRF-Token"] = csrf;
      options.body = JSON.stringify(body);
    }
    const response = await fetch(url, options);
    let data = null;
    try {
      data = await response.json();
    } catch (_) {
      data = null;
    }
    return { status: response.status, data };
  }

  function errorCode(result) {
    return result.data && result.data.error ? result.data.error.code : null;
  }

  function message(result) {
    return result.data && result.data.error ? result.data.error.message : `the server answered ${result.status}`;
  }

  async function renewToken() {
    // The session now in this browser, if it is this page's user: its CSRF token replaces the page's.
    let result;
    try {
      result = await call("GET", "/api/session");
    } catch (_) {
      return "the connection failed";
    }
    if (result.status !== 200) {
      return result.status === 401 ? "your session has ended; log in again in another tab" : message(result);
    }
    if (result.data.user !== root.dataset.user) {
      return `this browser is now logged in as ${result.data.user}, not ${root.dataset.user}; log in as ${root.dataset.user} to save it`;
    }
    csrf = result.data.csrf_token;
    return null;
  }

  async function send(renewed = false) {
    const write = pending;
    if (!write || sending) {
      return;
    }
    sending = true;
    setState("saving", "Saving…");
    let result;
    try {
      result = await call("POST", write.url, write.body);
    } catch (_) {
      refusedWhileSending = false;
      setState("unsaved", "NOT saved: the connection failed. The grade is kept here: press Retry (R).");
      return;
    } finally {
      sending = false;
    }
    const refused = refusedWhileSending;  // a grade made while this one was on its way, and turned away
    refusedWhileSending = false;
    if (result.status >= 200 && result.status < 300) {
      keepPending(null);
      if (refused) {
        setState("unsaved", "The previous grade is saved; the one made while it was saving was NOT: grade that pair again.");
      } else {
        setState("saved", write.kind === "undo" ? "Undone." : "Saved.");
      }
      applied(write, result.data);
    } else if (result.status >= 500 || result.status === 401 || result.status === 429) {
      const why = result.status === 401 ? "your session has ended; log in again in another tab" : message(result);
      setState("unsaved", `NOT saved: ${why}. The grade is kept here: press Retry (R).`);
    } else if (result.status === 403 && errorCode(result) === "csrf_failed") {
      // This page's token belongs to an earlier session (a new login elsewhere replaced it): with the new
      // session's token the kept grade is sent again, with the same event id.
      const why = renewed ? "this page's login could not be renewed" : await renewToken();
      if (why === null) {
        send(true);
      } else {
        setState("unsaved", `NOT saved: ${why}. The grade is kept here: press Retry (R).`);
      }
    } else {
      keepPending(null);
      setState("rejected", `NOT saved: ${message(result)}.`);
    }
  }

  function write(kind, url, body, target) {
    if (pending) {
      refusedWhileSending = sending;
      setState("unsaved", "NOT saved yet: the previous grade is still waiting. Press Retry (R) first.");
      return;
    }
    keepPending({ kind, url, target, body: { event_id: uuid4(), qid: target.qid, docid: target.docid, ...body } });
    send();
  }

  function applied(write, data) {
    const at = queue.findIndex((e) => e.position === write.target.position);
    if (at === -1) {
      return;
    }
    if (write.kind === "undo") {
      queue[at].label = data.label;
      progress();
      show(at);
      refresh(null);
      return;
    }
    queue[at].label = data.judgment;
    undoable.push(write.target);
    progress();
    if (at === index) {
      paintLabel(data.judgment); // the pair stays on screen, graded, until the next one arrives
      advance(write.target.position);
    } else {
      refresh(null);
    }
  }

  async function refresh(after) {
    // The queue in the server's order now (a targeted one changes with every grade) and the position it names
    // next, taken in while the pair on screen stays; null when it could not be had.
    const url = after === null ? queueUrl : `${queueUrl}${qid ? "&" : "?"}after=${after}`;
    const asked = ++refreshes;
    let result;
    try {
      result = await call("GET", url);
    } catch (_) {
      return null;
    }
    if (result.status !== 200 || asked !== refreshes) {
      return null; // failed, or overtaken by a later request whose answer is newer
    }
    const shown = onScreen();
    queue = result.data.pairs;
    index = queue.findIndex((e) => e.position === shown);
    progress();
    if (index !== -1) {
      $("doc-position").textContent = `${index + 1} of ${queue.length}`;
    }
    return result.data;
  }

  function onScreen() {
    return index >= 0 && index < queue.length ? queue[index].position : null;
  }

  async function advance(graded) {
    // grade keys wait until the next pair is on screen: until then they would grade the pair just graded
    advancing = true;
    try {
      const data = await refresh(graded);
      if (index !== -1 && (onScreen() !== graded || !queue[index].label)) {
        return; // the assessor moved (N or P), or undid the grade (U), while the queue was on its way
      }
      let next;
      if (data) {
        next = queue.findIndex((e) => e.position === data.next);
      } else {
        // no answer: the next unlabelled pair in the order held here, then from the start
        const later = queue.findIndex((e, i) => i > index && !e.label);
        next = later !== -1 ? later : queue.findIndex((e) => !e.label);
      }
      if (next === -1) {
        $("done").hidden = false;
        await show(index === -1 ? 0 : index);
      } else {
        await show(next);
      }
    } finally {
      advancing = false;
    }
  }

  function progress() {
    const done = queue.filter((e) => e.label).length;
    $("progress").max = queue.length;
    $("progress").value = done;
    $("progress-text").textContent = `${done} of ${queue.length} judged`;
    $("done").hidden = done !== queue.length;
  }

  function describe(label) {
    if (!label) {
      return "Not judged yet.";
    }
    const note = label.note ? ` Note: ${label.note}` : "";
    if (label.kind === "cannot_judge") {
      return `You marked it “cannot judge”: ${label.reason}.${note}`;
    }
    return `Your grade: ${label.grade} (${levels.get(label.grade) || "not a level of this rubric"}).${note}`;
  }

  async function show(i) {
    if (i < 0 || i >= queue.length) {
      return;
    }
    index = i;
    const entry = queue[i];
    let pair = cache.get(entry.position);
    if (!pair) {
      let result;
      try {
        result = await call("GET", `/api/pairs/${entry.position}`);
      } catch (_) {
        $("doc-title").textContent = "Could not load this pair: the connection failed. Press N or P to try again.";
        $("doc-text").textContent = "";
        return;
      }
      if (result.status !== 200) {
        $("doc-title").textContent = `Could not load this pair: ${message(result)}.`;
        $("doc-text").textContent = "";
        return;
      }
      pair = result.data;
      cache.set(entry.position, pair);
    }
    if (index !== i) {
      return;
    }
    $("query-text").textContent = pair.query.text || pair.qid;
    $("query-description").textContent = pair.query.description || "";
    $("query-narrative").textContent = pair.query.narrative || "";
    $("doc-position").textContent = `${i + 1} of ${queue.length}`;
    $("doc-title").textContent = pair.document.title || pair.docid;
    $("doc-text").textContent = pair.document.text || "";
    $("doc-url").textContent = pair.document.url || "";
    paintLabel(entry.label);
    $("note").value = "";
    $("reason").value = "";
    $("cannot-form").hidden = true;
    prefetch(i + 1);
  }

  function paintLabel(label) {
    for (const button of gradeButtons) {
      const chosen = Boolean(label && label.kind === "grade" && label.grade === Number(button.dataset.grade));
      button.setAttribute("aria-pressed", String(chosen));
    }
    $("current-label").textContent = describe(label);
  }

  async function prefetch(i) {
    if (i >= queue.length || cache.has(queue[i].position)) {
      return;
    }
    try {
      const result = await call("GET", `/api/pairs/${queue[i].position}`);
      if (result.status === 200) {
        cache.set(queue[i].position, result.data);
      }
    } catch (_) {
      // prefetching is an optimisation: show() fetches again and reports a failure
    }
  }

  function target() {
    const entry = queue[index];
    return { position: entry.position, qid: entry.qid, docid: entry.docid };
  }

  function leaveControls() {
    // focus on the pair, not on the button just used: Enter and Space then press nothing
    $("pair").focus({ preventScroll: true });
  }

  function grade(value) {
    leaveControls();
    if (index < 0 || advancing || !levels.has(value)) {
      return;
    }
    const note = $("note").value.trim();
    write("grade", "/api/judgments", { grade: value, note: note || null }, target());
  }

  function cannotJudge(event) {
    event.preventDefault();
    const reason = $("reason").value.trim();
    if (index < 0 || advancing || !reason) {
      $("reason").focus();
      return;
    }
    const note = $("note").value.trim();
    leaveControls();
    write("cannot_judge", "/api/judgments", { cannot_judge: reason, note: note || null }, target());
  }

  function undo() {
    leaveControls();
    const last = undoable.pop();
    if (!last) {
      setState("idle", "Nothing to undo: no grade was given on this page yet.");
      return;
    }
    write("undo", "/api/undo", {}, last);
  }

  function openCannotJudge() {
    $("cannot-form").hidden = false;
    $("reason").focus();
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    if (event.target.closest && event.target.closest("input, textarea, select")) {
      if (event.key === "Escape") {
        event.target.blur();
      }
      return;
    }
    const key = event.key.toLowerCase();
    const actions = {
      n: () => show(index + 1), arrowright: () => show(index + 1),
      p: () => show(index - 1), arrowleft: () => show(index - 1),
      u: undo, c: openCannotJudge, r: () => send(),
    };
    if (/^[0-9]$/.test(key) && levels.has(Number(key))) {
      grade(Number(key));
    } else if (actions[key]) {
      actions[key]();
    } else {
      return;
    }
    event.preventDefault();
  }

  async function start() {
    const fromBefore = pending; // a write kept by an earlier page, not one made here while the queue loads
    let result;
    try {
      result = await call("GET", queueUrl);
    } catch (_) {
      $("progress-text").textContent = "Could not load your queue: the connection failed. Reload the page.";
      return;
    }
    if (result.status !== 200) {
      $("progress-text").textContent = `Could not load your queue: ${message(result)}.`;
      return;
    }
    queue = result.data.pairs;
    progress();
    const first = queue.findIndex((e) => e.position === result.data.next);
    await show(first === -1 ? 0 : first);
    if (fromBefore && pending === fromBefore && !sending) {
      setState("unsaved", "A grade from before was NOT saved; retrying it…");
      send();
    }
  }

  for (const button of gradeButtons) {
    button.addEventListener("click", () => grade(Number(button.dataset.grade)));
  }
  $("cannot").addEventListener("click", openCannotJudge);
  $("cannot-form").addEventListener("submit", cannotJudge);
  $("prev").addEventListener("click", () => show(index - 1));
  $("next").addEventListener("click", () => show(index + 1));
  $("undo").addEventListener("click", undo);
  $("retry").addEventListener("click", () => send());
  document.addEventListener("keydown", onKey);
  window.addEventListener("beforeunload", (event) => {
    if (pending) {
      event.preventDefault();
      event.returnValue = "";
    }
  });
  start();
})();
