// Testmate: switches (role="switch" buttons) toggle aria-checked and mirror it into the hidden input of their
// .switch-field, which the form posts.
(function () {
  'use strict';
  document.querySelectorAll('button[role="switch"]').forEach(function (sw) {
    sw.addEventListener('click', function (e) {
      e.preventDefault();
      var on = sw.getAttribute('aria-checked') !== 'true';
      sw.setAttribute('aria-checked', on ? 'true' : 'false');
      var field = sw.closest('.switch-field');
      var input = field && field.querySelector('input[type="hidden"]');
      if (input) input.value = on ? 'true' : 'false';
    });
  });
})();
