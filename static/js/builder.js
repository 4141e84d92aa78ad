// The builder's small helpers; the page works without them (numbers update on "Update
// numbers", Save saves). Loaded from a static file: the CSP refuses inline scripts.
(function () {
  "use strict";
  var form = document.getElementById("builder-form");
  if (!form) return;

  // Each attribute's hint is its description; when the live check marks it as an error,
  // mark the box too, for screen readers (aria-invalid) and by its border.
  function syncInvalid() {
    form.querySelectorAll(".field.attribute").forEach(function (row) {
      var hint = row.querySelector(".hint");
      var input = row.querySelector("input");
      if (!hint || !input) return;
      var bad = hint.classList.contains("error");
      row.classList.toggle("has-error", bad);
      if (bad) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    });
  }
  document.body.addEventListener("htmx:afterSettle", syncInvalid);

  // + and - steppers beside each attribute, as teambuilders have them. The number box
  // itself already steps with the arrow keys; the buttons are for touch and mouse, so they
  // stay out of the tab order.
  form.querySelectorAll(".field.attribute input[type=number]").forEach(function (input) {
    var label = form.querySelector("label[for='" + input.id + "']");
    var name = label ? label.textContent.trim() : input.name;
    var wrap = document.createElement("span");
    wrap.className = "stepper";
    input.parentNode.insertBefore(wrap, input);
    function button(text, delta, verb) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "secondary step";
      b.tabIndex = -1;
      b.textContent = text;
      b.setAttribute("aria-label", verb + " " + name);
      b.addEventListener("click", function () {
        var min = Number(input.min || 1), max = Number(input.max || 20);
        var value = parseInt(input.value, 10);
        if (isNaN(value)) value = min;
        input.value = Math.min(max, Math.max(min, value + delta));
        input.dispatchEvent(new Event("input", { bubbles: true }));
        input.dispatchEvent(new Event("change", { bubbles: true }));
      });
      return b;
    }
    wrap.appendChild(button("\u2212", -1, "Decrease"));
    wrap.appendChild(input);
    wrap.appendChild(button("+", 1, "Increase"));
  });

  // Leaving with unsaved changes asks first; saving or updating the numbers does not.
  var dirty = false;
  form.addEventListener("input", function () { dirty = true; });
  form.addEventListener("submit", function () { dirty = false; });
  window.addEventListener("beforeunload", function (event) {
    if (dirty) { event.preventDefault(); event.returnValue = ""; }
  });
})();
