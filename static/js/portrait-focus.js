// Click the portrait to move its focal point: fills in the two number fields, which work
// on their own without this script. Loaded as a file because the CSP refuses inline code.
(function () {
  "use strict";
  var image = document.getElementById("focus-image");
  if (!image) { return; }
  var marker = document.getElementById("focus-marker");
  var fieldX = document.getElementById("id_focus_x");
  var fieldY = document.getElementById("id_focus_y");

  function place() {
    marker.style.left = (parseFloat(fieldX.value) || 0) * 100 + "%";
    marker.style.top = (parseFloat(fieldY.value) || 0) * 100 + "%";
    marker.hidden = false;
  }

  image.addEventListener("click", function (event) {
    var box = image.getBoundingClientRect();
    var x = Math.min(1, Math.max(0, (event.clientX - box.left) / box.width));
    var y = Math.min(1, Math.max(0, (event.clientY - box.top) / box.height));
    fieldX.value = x.toFixed(3);
    fieldY.value = y.toFixed(3);
    place();
  });
  fieldX.addEventListener("input", place);
  fieldY.addEventListener("input", place);
  place();
})();
