// Staybook page script: filter checkboxes apply at once (the filter form submits on change), and the
// wishlist hearts toggle (event delegation, so it survives re-rendered result lists).
(function () {
  "use strict";
  var filters = document.getElementById("filters");
  if (filters) filters.addEventListener("change", function () { filters.submit(); });
  document.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("button.wishlist, button.wishlist-big") : null;
    if (!b) return;
    var on = b.getAttribute("aria-pressed") !== "true";
    b.setAttribute("aria-pressed", String(on));
    if (b.classList.contains("wishlist")) b.textContent = on ? "♥" : "♡";
    else b.textContent = on ? "Saved" : "Save the property";
  });
})();
