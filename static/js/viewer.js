// The battle viewer's keyboard, play/pause, speed, following a presenter, and where the
// eye and the focus go after each step. Every step control is a plain link (with hx-get),
// so without JavaScript each step is a normal page; the controls that need this script
// stay hidden without it.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var controls = document.querySelector("[data-viewer-controls]");
  if (!controls) return;
  controls.hidden = false;
  var playButton = controls.querySelector("[data-action=play]");
  var speed = controls.querySelector("[data-action=speed]");
  var followButton = controls.querySelector("[data-action=follow]");
  var followStatus = controls.querySelector("[data-follow-status]");
  var announce = document.querySelector("[data-viewer-announce]");
  var reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  var timer = null;

  // A key pressed while a step is still loading waits for it: clicking a link that htmx
  // is about to replace would be lost.
  var busy = false;
  var queued = null;
  // The control that asked for the step, so focus can come back to its twin in the new
  // viewer instead of falling to the top of the page.
  var focusNav = null;

  function viewer() { return document.getElementById("viewer"); }

  // The current event scrolls to just below the sticky stage, however tall it is here.
  function measureStage() {
    var stage = document.querySelector("#viewer .stage");
    if (stage) document.documentElement.style.setProperty("--stage-height", stage.offsetHeight + "px");
  }
  window.addEventListener("resize", measureStage);
  measureStage();

  // HP bars slide from the old width to the new when a step lands. htmx's settle does it
  // for its own swaps (the fill keeps its id); a viewer swapped in any other way (a
  // presenter's step) starts each fill at its old width here, then lets it move.
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      var fresh = Array.prototype.find.call(record.addedNodes, function (n) { return n.id === "viewer"; });
      var old = Array.prototype.find.call(record.removedNodes, function (n) { return n.id === "viewer"; });
      if (!fresh || !old || reduceMotion.matches) return;
      var moved = [];
      fresh.querySelectorAll(".hp-fill[id]").forEach(function (fill) {
        var before = old.querySelector("#" + CSS.escape(fill.id));
        var from = before && before.getAttribute("width");
        var to = fill.getAttribute("width");
        if (from && from !== to) { fill.setAttribute("width", from); moved.push([fill, to]); }
      });
      if (!moved.length) return;
      fresh.getBoundingClientRect(); // the old widths are laid out before the new ones
      requestAnimationFrame(function () {
        moved.forEach(function (pair) { pair[0].setAttribute("width", pair[1]); });
      });
    });
  }).observe(document.querySelector("main") || document.body, { childList: true, subtree: true });

  // `jump`: at once, not gliding. A page that has just loaded is put in place before it is
  // read: a glide of half a second moved the step bar from under a phone's tap, which then
  // landed on the stage (CI's busy-machine test, issue 41.10). A step taken in place glides.
  function showCurrent(jump) {
    measureStage();
    var current = document.querySelector("#viewer .event.current") ||
      document.querySelector("#viewer .result") || document.querySelector("#viewer .where");
    if (current) {
      var glide = !jump && !reduceMotion.matches;
      current.scrollIntoView({ block: "nearest", behavior: glide ? "smooth" : "auto" });
    }
    if (announce) {
      var where = document.querySelector("#viewer .where");
      var text = current && current.querySelector(".text");
      announce.textContent = (where ? where.textContent + ". " : "") + (text ? text.textContent : "");
    }
  }

  function restoreFocus() {
    if (!focusNav) return;
    var name = focusNav;
    focusNav = null;
    var twin = document.querySelector('#viewer [data-nav="' + name + '"]');
    if (twin && /^(A|BUTTON)$/.test(twin.tagName)) { twin.focus({ preventScroll: true }); return; }
    // The control is now disabled (the start or the end): keep focus inside the step bar.
    var bar = document.querySelector("#viewer .steps");
    if (bar) { bar.focus({ preventScroll: true }); }
  }

  // Only requests that replace the viewer count; the presenter's position posts do not.
  function aimsAtViewer(event) {
    var target = event.detail && event.detail.target;
    return (target && target.id === "viewer") || (event.target && event.target.id === "viewer");
  }
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    if (aimsAtViewer(event)) busy = true;
  });
  document.body.addEventListener("htmx:afterSettle", function (event) {
    if (!aimsAtViewer(event)) return;
    busy = false;
    restoreFocus();
    showCurrent();
    if (queued) { var name = queued; queued = null; go(name); }
  });
  ["htmx:responseError", "htmx:sendError"].forEach(function (name) {
    document.body.addEventListener(name, function () { busy = false; queued = null; });
  });

  // Clicks on the step bar's links: remember which one, so its twin gets the focus back.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("#viewer a[data-nav]");
    if (!link) return;
    detach();
    if (document.activeElement === link || event.detail > 0) focusNav = link.getAttribute("data-nav");
  });
  document.addEventListener("submit", function (event) {
    if (event.target.closest && event.target.closest("#viewer form.jump")) { detach(); focusNav = "jump"; }
  });

  function go(name) {
    if (busy) { queued = name; return true; }
    var link = document.querySelector('#viewer a[data-nav="' + name + '"]');
    if (!link) return false;
    link.click();
    return true;
  }

  function stop() {
    if (timer) { clearTimeout(timer); timer = null; }
    playButton.textContent = "Play";
    playButton.setAttribute("aria-pressed", "false");
  }

  function tick() {
    if (!go("next")) { stop(); return; }
    timer = setTimeout(tick, parseInt(speed.value, 10) || 700);
  }

  function play() {
    detach();
    playButton.textContent = "Pause";
    playButton.setAttribute("aria-pressed", "true");
    tick();
  }

  playButton.addEventListener("click", function () { if (timer) { stop(); } else { play(); } });
  speed.addEventListener("change", function () {
    if (timer) { clearTimeout(timer); timer = setTimeout(tick, parseInt(speed.value, 10)); }
  });

  var keys = {
    ArrowRight: "next", ArrowLeft: "prev", PageDown: "next-round", PageUp: "prev-round",
    Home: "first", End: "last"
  };
  document.addEventListener("keydown", function (event) {
    var target = event.target || {};
    var tag = target.tagName || "";
    // Keys belong to form fields while one has focus; everywhere else they drive the viewer.
    if (/^(INPUT|SELECT|TEXTAREA)$/.test(tag) || target.isContentEditable) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === " ") {
      // Space on a button would also click it: one toggle only.
      event.preventDefault();
      if (timer) { stop(); } else { play(); }
      return;
    }
    var nav = keys[event.key];
    if (nav) {
      event.preventDefault();
      if (timer) stop();
      detach();
      // Focus on a step control comes back to its twin; focus outside the viewer stays put.
      var owner = document.activeElement;
      if (owner && owner.closest && owner.closest("#viewer")) {
        focusNav = owner.getAttribute("data-nav") || "steps";
      }
      go(nav);
    }
  });

  // Following a presenter: the server pushes each step down an EventSource (Server-Sent
  // Events); where no stream can be had (no EventSource, a server without one, a stream
  // that broke) the page polls the presentation with its ETag instead: a 304 costs the
  // server almost nothing, a 200 carries the presented step's viewer, rendered once.
  var followUrl = followButton ? followButton.getAttribute("data-follow-url") : null;
  var pollUrl = null;
  var streamUrl = null;
  var source = null;
  var etag = null;
  var following = false;
  var pollTimer = null;
  var POLL_MS = 800;

  function closeStream() {
    if (source) { source.close(); source = null; }
  }

  function setFollowing(on, message) {
    following = on;
    if (!followButton) return;
    followButton.setAttribute("aria-pressed", on ? "true" : "false");
    followButton.textContent = on ? "Detach" : "Follow the presenter";
    if (followStatus) followStatus.textContent = message || (on ? "Following the presenter." : "");
    if (!on) {
      if (pollTimer) { clearTimeout(pollTimer); pollTimer = null; }
      closeStream();
    }
  }

  function detach() {
    if (following) setFollowing(false, "Detached: stepping on your own.");
  }

  // The presented step's viewer replaces ours (unless a step of our own is loading).
  function showPresented(html) {
    if (!following || busy) return;
    var old = viewer();
    if (!old) return;
    var holder = document.createElement("div");
    holder.innerHTML = html.trim();
    var fresh = holder.firstElementChild;
    if (!fresh || fresh.id !== "viewer") return;
    var hadFocus = old.contains(document.activeElement) && document.activeElement.getAttribute("data-nav");
    old.replaceWith(fresh);
    htmx.process(fresh);
    if (hadFocus) { focusNav = hadFocus; restoreFocus(); }
    var base = followButton.getAttribute("data-base-url");
    if (base) {
      history.replaceState(null, "", base + "?round=" + fresh.getAttribute("data-round") +
        "&step=" + fresh.getAttribute("data-step") + "&follow=1");
    }
    if (followStatus) followStatus.textContent = "Following the presenter.";
    showCurrent();
  }

  function stream() {
    closeStream();
    source = new EventSource(streamUrl);
    source.addEventListener("update", function (event) {
      etag = event.lastEventId || etag;
      showPresented(event.data);
    });
    source.addEventListener("end", function () {
      setFollowing(false, "The presentation has ended.");
    });
    source.onerror = function () {
      // A refused or broken stream: poll from here on (the poll says if it has ended).
      closeStream();
      if (following && !pollTimer) poll();
    };
  }

  function poll() {
    pollTimer = null;
    if (!following || !pollUrl) return;
    var headers = { "HX-Request": "true" };
    if (etag) headers["If-None-Match"] = etag;
    fetch(pollUrl, { headers: headers, cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        if (!following) return;
        if (response.status === 304) return;
        if (response.status === 204) { setFollowing(true, "Waiting for the presenter…"); return; }
        if (response.status === 429) return; // too many polls from here: wait for the next
        if (!response.ok) { setFollowing(false, "The presentation has ended."); return; }
        etag = response.headers.get("ETag");
        return response.text().then(showPresented);
      })
      .catch(function () { /* a dropped poll is retried by the next one */ })
      .then(function () { if (following) pollTimer = setTimeout(poll, POLL_MS); });
  }

  function follow() {
    if (timer) stop();
    setFollowing(true, "Looking for the presenter…");
    fetch(followUrl, { headers: { "Accept": "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!following) return;
        if (!data || !data.poll) { setFollowing(false, "Nobody is presenting right now."); return; }
        if (data.poll !== pollUrl) { pollUrl = data.poll; etag = null; }
        streamUrl = data.stream || null;
        if (streamUrl && window.EventSource) { stream(); } else { poll(); }
      })
      .catch(function () { setFollowing(false, "Could not reach the presenter."); });
  }

  // The presenter's own step posts: a refusal (someone took over) is said beside the
  // present controls, where the presenter is looking.
  document.body.addEventListener("htmx:responseError", function (event) {
    var form = event.detail && event.detail.elt;
    if (!form || !form.matches || !form.matches("[data-present-step]")) return;
    var status = document.querySelector("#viewer [data-present-status]");
    if (status) status.textContent = event.detail.xhr.responseText || "Your step was not shown to followers.";
  });

  if (followButton && followUrl) {
    followButton.hidden = false;
    followButton.addEventListener("click", function () { if (following) { detach(); } else { follow(); } });
    if (/[?&]follow=1(&|$)/.test(window.location.search)) follow();
  }

  if (/[?&](round|step)=/.test(window.location.search)) showCurrent(true);
})();
