// The play pages' live parts: a pushed "changed" (Server-Sent Events), after which this
// page asks the server for its OWN view (nothing of the other side ever travels in an
// event); a polling fallback where no stream can be had; and the plan's countdown.
// Without JavaScript every page still works: waiting pages reload themselves (a
// <noscript> refresh), the plan form posts, and "Check the plan" shows the totals.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var root = document.querySelector("[data-play]");
  if (!root) return;
  var page = root.getAttribute("data-page");
  var shownRound = parseInt(root.getAttribute("data-round"), 10) || 0;
  var gameUrl = root.getAttribute("data-game-url");
  var streamUrl = root.getAttribute("data-stream-url");
  var pollUrl = root.getAttribute("data-poll-url");
  var POLL_MS = 3000;
  var etag = null;
  var source = null;
  var leaving = false;

  function go(url) {
    if (leaving) return;
    leaving = true;
    window.location.assign(url);
  }

  // What this page does once the game has moved: each page asks for its own next view.
  function moved(data) {
    var resolved = data.status === "finished" ? data.round : data.round - 1;
    if (page === "invite") { if (data.status !== "waiting") go(gameUrl); return; }
    if (page === "waiting" || page === "plan" || page === "handover") {
      // The round this page was about resolved (both plans in, or the time ran out).
      if (data.round !== shownRound || data.status === "finished") go(gameUrl + "?after=" + shownRound);
      else if (data.thinking === false) thought();
      return;
    }
    if (page === "watch" && resolved > shownRound) {
      // On to the round that just resolved, from its first event (later rounds unknown).
      go(window.location.pathname + "?round=" + resolved);
    }
  }

  // The AI made its plan for this round while this side plans: the note says so in
  // place (the plan in progress stays as it is).
  function thought() {
    var note = root.querySelector("[data-thinking-status]");
    if (!note || note.hasAttribute("data-thought")) return;
    note.setAttribute("data-thought", "");
    note.textContent = note.getAttribute("data-done");
    var missing = root.querySelector("[data-thinking] .no-worker");
    if (missing) missing.remove();
  }

  function check() {
    if (!pollUrl) return Promise.resolve();
    var headers = {};
    if (etag) headers["If-None-Match"] = etag;
    return fetch(pollUrl, { headers: headers, cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        if (response.status === 304) return null;
        if (!response.ok) return null;
        etag = response.headers.get("ETag");
        return response.json();
      })
      .then(function (data) { if (data) moved(data); })
      .catch(function () { /* the next look tries again */ });
  }

  function poll() {
    check().then(function () { if (!leaving) setTimeout(poll, POLL_MS); });
  }

  function listen() {
    if (!streamUrl || !window.EventSource) { if (pollUrl) poll(); return; }
    source = new EventSource(streamUrl);
    // The first event is the game as it stands on connect; each after it, a change. The
    // event says only that: what changed is asked for, as this page's own view.
    source.addEventListener("changed", check);
    source.addEventListener("end", function () { source.close(); });
    source.onerror = function () {
      // Refused, broken, or a server that cannot hold a stream (204): poll from here on.
      source.close();
      source = null;
      if (!leaving) poll();
    };
  }

  if (pollUrl) {
    check().then(listen); // the first look sets the ETag (and catches a change since load)
  }

  // The countdown: the seconds left to plan this round, on every page of the round
  // (plan, hand-over, waiting). When it runs out the page says one thing, "the time is
  // up", and asks the server to let the AI plan for whoever has not (a POST it refuses,
  // changing nothing, if it is early); the server's own task at the deadline does the
  // same if no page is open, and either way the pushed "changed" moves this page on.
  var countdown = document.querySelector("[data-deadline]");
  if (countdown) {
    var deadline = Date.parse(countdown.getAttribute("data-deadline"));
    var shown = countdown.querySelector("[data-countdown]");
    var announcer = document.createElement("span");
    announcer.className = "sr";
    announcer.setAttribute("aria-live", "polite");
    countdown.appendChild(announcer);
    var spoken = {};
    var fired = false;
    var tick = function () {
      var left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      countdown.classList.toggle("urgent", left <= 15);
      if (left === 0) {
        if (fired) return;
        fired = true;
        // One message replaces the clock: no "10 seconds left" beside "time is up".
        countdown.textContent = countdown.getAttribute("data-expired");
        countdown.setAttribute("role", "status");
        var token = (document.querySelector("[name=csrfmiddlewaretoken]") || {}).value ||
          (JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"]);
        fetch(countdown.getAttribute("data-timeout-url"), {
          method: "POST", credentials: "same-origin", headers: { "X-CSRFToken": token || "" },
          redirect: "manual"
        }).catch(function () {}).then(function () { etag = null; check(); });
        return;
      }
      shown.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") + " left";
      [60, 30, 10].forEach(function (mark) {
        if (left <= mark && left > mark - 2 && !spoken[mark]) { spoken[mark] = true; announcer.textContent = mark + " seconds left to plan."; }
      });
      setTimeout(tick, 1000 - ((deadline - Date.now()) % 1000 || 0));
    };
    tick();
  }

  // The invite's "Copy the link": the clipboard where it may be written, else the link
  // selected for the reader to copy.
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var field = document.querySelector(button.getAttribute("data-copy"));
      var said = button.parentNode.querySelector("[data-copied]");
      var done = function (text) { if (said) said.textContent = text; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(
          function () { done("Copied."); },
          function () { field.select(); done("Selected: copy it with your keyboard or menu."); });
      } else {
        field.select();
        done("Selected: copy it with your keyboard or menu.");
      }
    });
  });

  // A plan in progress survives a reload: its choices are kept in this tab's
  // sessionStorage under the game, round and side (never sent anywhere), put back on a
  // fresh page, and dropped when the plan is submitted.
  var form = document.querySelector("form.plan-form");
  var fields = function () { return form.querySelectorAll(".hand select, .hand input.order, .moves select, .moves input[type=checkbox]"); };
  if (form && window.sessionStorage) {
    var key = "memeyori-plan:" + form.getAttribute("data-plan-key");
    var save = function () {
      var kept = {};
      fields().forEach(function (el) { kept[el.name] = el.type === "checkbox" ? el.checked : el.value; });
      try { sessionStorage.setItem(key, JSON.stringify(kept)); } catch (e) { /* full or off */ }
    };
    var kept = null;
    try { kept = JSON.parse(sessionStorage.getItem(key) || "null"); } catch (e) { kept = null; }
    if (kept && form.hasAttribute("data-fresh")) {
      fields().forEach(function (el) {
        if (!(el.name in kept)) return;
        if (el.type === "checkbox") el.checked = kept[el.name];
        else el.value = kept[el.name]; // a <select> keeps its value if it lacks the kept one
      });
    }
    form.addEventListener("change", save);
    form.addEventListener("input", save);
    form.addEventListener("submit", function () { sessionStorage.removeItem(key); });
  }

  // htmx sends a form's own request to the formaction of the submit button clicked last:
  // a live check due just after "Switch/summon now" was clicked (its 150 ms delay, a slow
  // answer) went to the stage's URL and made the Switch a second time ("Not made: you made
  // this round's Switch and summon already"). A check goes to the check's URL only, and
  // none leaves once the form is on its way (a page put back from the back-forward cache
  // checks again).
  if (form && form.hasAttribute("hx-post")) {
    var submitting = false;
    form.addEventListener("submit", function () { submitting = true; });
    window.addEventListener("pageshow", function () { submitting = false; });
    form.addEventListener("htmx:configRequest", function (evt) {
      if (evt.detail.elt !== form) return;
      if (submitting) { evt.preventDefault(); return; }
      evt.detail.path = form.getAttribute("hx-post");
    });
  }

  // The live plan panel is the server's check of the form as it stands. Choices made before
  // htmx took the form in (a slow phone, the choices put back above, the browser's own
  // form restore) fired no check, so once it has, one check if the form is not as served.
  var served = function (el) {
    if (el.type === "checkbox") return el.checked === el.defaultChecked;
    if (el.tagName === "SELECT") {
      var first = -1;
      for (var i = 0; i < el.options.length; i++) if (el.options[i].defaultSelected) { first = i; break; }
      return el.selectedIndex === (first === -1 ? 0 : first);
    }
    return el.value === el.defaultValue;
  };
  if (form && form.hasAttribute("hx-post")) {
    var recheck = function () {
      var moved = false;
      fields().forEach(function (el) { if (!served(el)) moved = true; });
      if (moved && window.htmx) htmx.trigger(form, "change");
    };
    // htmx takes the page in when the DOM is ready; this runs after it.
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { setTimeout(recheck, 0); });
    else setTimeout(recheck, 0);
  }
})();
