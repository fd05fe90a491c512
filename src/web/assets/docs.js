// Swagger UI at /docs, as Cofre: the top bar's logo and a link lead back to the dashboard.
(function () {
  function brand() {
    var bar = document.querySelector('#swagger-ui .topbar-wrapper');
    if (!bar) return false;
    var logo = bar.querySelector('a');
    if (logo) {
      logo.setAttribute('href', '/dashboard');
      logo.setAttribute('aria-label', 'Cofre: voltar ao painel');
      logo.removeAttribute('target');
    }
    if (!bar.querySelector('.cofre-back')) {
      var back = document.createElement('a');
      back.className = 'cofre-back';
      back.href = '/dashboard';
      back.textContent = '← Voltar ao painel';
      bar.appendChild(back);
    }
    return true;
  }
  if (!brand()) {
    var observer = new MutationObserver(function () {
      if (brand()) observer.disconnect();
    });
    observer.observe(document.documentElement, { childList: true, subtree: true });
  }
})();
