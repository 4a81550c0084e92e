// Testmate: switches (role="switch" buttons) toggle aria-checked and mirror it into the hidden input of their
// .switch-field, which the form posts. Also served to Northwind Outfitters and Staybook as static/switch.js.
// One delegated listener, so a switch that a page re-renders (Staybook's ref_churn clones its booking form)
// keeps working.
(function () {
  'use strict';
  document.addEventListener('click', function (e) {
    var sw = e.target.closest ? e.target.closest('button[role="switch"]') : null;
    if (!sw) return;
    e.preventDefault();
    var on = sw.getAttribute('aria-checked') !== 'true';
    sw.setAttribute('aria-checked', on ? 'true' : 'false');
    var field = sw.closest('.switch-field');
    var input = field && field.querySelector('input[type="hidden"]');
    if (input) input.value = on ? 'true' : 'false';
  });
})();
