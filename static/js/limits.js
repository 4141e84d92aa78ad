// A count beside text fields that have a length limit (data-limit, set by cards.forms.
// LimitsShown), as the GOV.UK character count does: nothing is cut, the server refuses a
// value that is too long with a message by the field, and this says so while typing.
(function () {
  "use strict";
  var NEAR = 0.8; // show the count from 80% of the limit

  function attach(input) {
    if (input.dataset.limitCounted) return;
    input.dataset.limitCounted = "1";
    var limit = parseInt(input.getAttribute("data-limit"), 10);
    if (!limit) return;
    var count = document.createElement("small");
    count.className = "char-count";
    count.setAttribute("aria-hidden", "true");
    // Screen readers hear only the change from fitting to too long and back.
    var said = document.createElement("span");
    said.className = "sr";
    said.setAttribute("aria-live", "polite");
    input.insertAdjacentElement("afterend", said);
    input.insertAdjacentElement("afterend", count);
    var over = false;

    function update() {
      // As the server counts: characters (not UTF-16 units) once the ends are trimmed,
      // and a textarea's line breaks as the two it sends.
      var value = input.value.trim();
      var length = Array.from(value).length;
      if (input.tagName === "TEXTAREA") length += (value.match(/\n/g) || []).length;
      var tooLong = length > limit;
      count.hidden = length < limit * NEAR;
      count.classList.toggle("error", tooLong);
      count.textContent = tooLong
        ? length + " characters: " + (length - limit) + " too many (at most " + limit + ")"
        : length + " of " + limit + " characters";
      if (tooLong !== over) {
        over = tooLong;
        said.textContent = tooLong
          ? "Too long: at most " + limit + " characters."
          : "The length fits.";
      }
    }
    input.addEventListener("input", update);
    update();
  }

  function scan(root) {
    (root.querySelectorAll ? root : document).querySelectorAll("[data-limit]").forEach(attach);
  }
  scan(document);
  // Forms that htmx swaps in (the card editor's rows) get their counts too.
  document.addEventListener("htmx:afterSettle", function (event) { scan(event.target); });
})();
