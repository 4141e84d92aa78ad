// The battle viewer's keyboard, play/pause and speed. Every control it drives is a plain
// link (with hx-get) in the page, so without JavaScript each step is a normal page.
(function () {
  "use strict";
  var controls = document.querySelector("[data-viewer-controls]");
  if (!controls) return;
  controls.hidden = false;
  var playButton = controls.querySelector("[data-action=play]");
  var speed = controls.querySelector("[data-action=speed]");
  var timer = null;

  // A key pressed while a step is still loading waits for it: clicking a link that htmx
  // is about to replace would be lost.
  var busy = false;
  var queued = null;
  document.body.addEventListener("htmx:beforeRequest", function () { busy = true; });
  document.body.addEventListener("htmx:afterSettle", function () {
    busy = false;
    if (queued) { var name = queued; queued = null; follow(name); }
  });
  ["htmx:responseError", "htmx:sendError"].forEach(function (name) {
    document.body.addEventListener(name, function () { busy = false; queued = null; });
  });

  function follow(name) {
    if (busy) { queued = name; return true; }
    var link = document.querySelector('#viewer a[data-nav="' + name + '"]');
    if (link) { link.click(); return true; }
    return false;
  }

  function stop() {
    if (timer) { clearTimeout(timer); timer = null; }
    playButton.textContent = "Play";
    playButton.setAttribute("aria-pressed", "false");
  }

  function tick() {
    if (!follow("next")) { stop(); return; }
    timer = setTimeout(tick, parseInt(speed.value, 10) || 700);
  }

  function play() {
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
    var tag = (event.target && event.target.tagName) || "";
    if (/^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(tag) || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === " ") {
      event.preventDefault();
      if (timer) { stop(); } else { play(); }
      return;
    }
    var nav = keys[event.key];
    if (nav) {
      event.preventDefault();
      if (timer) stop();
      follow(nav);
    }
  });
})();
