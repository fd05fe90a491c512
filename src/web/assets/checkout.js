// Cofre hosted checkout: masks, CPF/CNPJ check digits, coupon, instalments, submission, PIX/boleto
// status polling (a boleto the bank is registering: until it is issued), copy buttons (also on the printable boleto, with its print button), cart
// abandonment. Plain browser JavaScript, no dependencies.
(function () {
  'use strict';
  var app = document.getElementById('app');
  if (!app) return;
  var brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
  function money(c) { return brl.format(c / 100); }
  function $(id) { return document.getElementById(id); }
  function digits(s) { return String(s || '').replace(/\D/g, ''); }

  function api(method, url, body) {
    return fetch(url, {
      method: method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
      credentials: 'same-origin'
    }).then(function (res) {
      return res.text().then(function (t) {
        var data = null;
        try { data = t ? JSON.parse(t) : null; } catch (_e) { data = null; }
        return { status: res.status, body: data, retryAfter: res.headers.get('retry-after') };
      });
    });
  }

  function setError(input, msg) {
    var out = $(input.id + '-error');
    input.setAttribute('aria-invalid', msg ? 'true' : 'false');
    if (out) { out.textContent = msg || ''; out.hidden = !msg; }
  }

  // ---- documents: CPF / CNPJ (also the alphanumeric CNPJ) with check digits
  function clean(s) { return String(s || '').replace(/[.\-/\s]/g, '').toUpperCase(); }
  function mod11(chars, weights) {
    var sum = 0;
    for (var i = 0; i < weights.length; i++) sum += (chars.charCodeAt(i) - 48) * weights[i];
    var r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  }
  function allSame(v) { return v.split('').every(function (c) { return c === v[0]; }); }
  function validDocument(s) {
    var v = clean(s);
    if (v.length === 11) {
      if (!/^\d{11}$/.test(v) || allSame(v)) return false;
      var a = v.slice(0, 9) + mod11(v, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
      return a + mod11(a, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]) === v;
    }
    if (v.length === 14) {
      if (!/^[A-Z0-9]{12}\d{2}$/.test(v) || allSame(v)) return false;
      var b = v.slice(0, 12) + mod11(v, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
      return b + mod11(b, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]) === v;
    }
    return false;
  }
  /** What to tell a person whose CPF/CNPJ field does not pass validDocument. */
  function documentProblem(s) {
    var v = clean(s);
    return !v ? 'Informe seu CPF ou CNPJ' : v.length > 11 ? 'CNPJ inválido' : 'CPF inválido';
  }
  function maskDocument(s) {
    var v = clean(s).replace(/[^A-Z0-9]/g, '').slice(0, 14);
    if (v.length <= 11 && /^\d*$/.test(v)) {
      return v.replace(/^(\d{3})(\d)/, '$1.$2').replace(/^(\d{3})\.(\d{3})(\d)/, '$1.$2.$3').replace(/\.(\d{3})(\d{1,2})$/, '.$1-$2');
    }
    return v.replace(/^(\w{2})(\w)/, '$1.$2').replace(/^(\w{2})\.(\w{3})(\w)/, '$1.$2.$3').replace(/\.(\w{3})(\w)/, '.$1/$2').replace(/(\w{4})(\d{1,2})$/, '$1-$2');
  }
  function maskPhone(s) {
    var v = digits(s).slice(0, 11);
    if (v.length <= 2) return v ? '(' + v : '';
    if (v.length <= 6) return '(' + v.slice(0, 2) + ') ' + v.slice(2);
    if (v.length <= 10) return '(' + v.slice(0, 2) + ') ' + v.slice(2, 6) + '-' + v.slice(6);
    return '(' + v.slice(0, 2) + ') ' + v.slice(2, 7) + '-' + v.slice(7);
  }
  function maskCard(s) { return digits(s).slice(0, 19).replace(/(\d{4})(?=\d)/g, '$1 '); }
  function maskExp(s) { var v = digits(s).slice(0, 4); return v.length > 2 ? v.slice(0, 2) + '/' + v.slice(2) : v; }
  function luhn(n) {
    if (!/^\d{12,19}$/.test(n)) return false;
    var sum = 0;
    for (var i = 0; i < n.length; i++) {
      var d = n.charCodeAt(n.length - 1 - i) - 48;
      if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return sum % 10 === 0;
  }
  function mask(id, fn) {
    var el = $(id);
    if (el) el.addEventListener('input', function () { el.value = fn(el.value); });
  }

  // ---- card fields shared by both pages
  function cardFieldsValid() {
    var ok = true;
    var num = $('card-number'), name = $('card-name'), exp = $('card-exp'), cvv = $('card-cvv');
    var n = digits(num.value);
    if (!luhn(n)) { setError(num, 'Número de cartão inválido'); ok = false; } else setError(num, '');
    if (name.value.trim().length < 2) { setError(name, 'Informe o nome como está no cartão'); ok = false; } else setError(name, '');
    var m = /^(\d{2})\/(\d{2})$/.exec(exp.value);
    var now = new Date();
    var expOk = m && +m[1] >= 1 && +m[1] <= 12 && (2000 + +m[2] > now.getFullYear() || (2000 + +m[2] === now.getFullYear() && +m[1] >= now.getMonth() + 1));
    if (!expOk) { setError(exp, 'Validade inválida'); ok = false; } else setError(exp, '');
    if (!/^\d{3,4}$/.test(cvv.value)) { setError(cvv, 'CVV inválido'); ok = false; } else setError(cvv, '');
    return ok;
  }
  function cardData() {
    var m = /^(\d{2})\/(\d{2})$/.exec($('card-exp').value);
    return { number: digits($('card-number').value), holderName: $('card-name').value.trim(), expMonth: +m[1], expYear: 2000 + +m[2], cvv: $('card-cvv').value };
  }
  function cardMasks() {
    mask('card-number', maskCard);
    mask('card-exp', maskExp);
    mask('card-cvv', function (v) { return digits(v).slice(0, 4); });
  }
  var DECLINE = {
    CARD_DECLINED: 'o cartão foi recusado pelo emissor',
    INSUFFICIENT_FUNDS: 'saldo ou limite insuficiente',
    EXPIRED_CARD: 'cartão vencido',
    INCORRECT_CVV: 'código de segurança incorreto',
    PROCESSING_ERROR: 'erro de processamento no emissor',
    OUT_OF_STOCK: 'o produto esgotou antes da confirmação; nenhum valor será cobrado',
    STOLEN_CARD: 'o cartão foi bloqueado pelo emissor',
    SUSPECTED_FRAUD: 'o emissor suspeitou de fraude; use outro cartão ou fale com o seu banco',
    INVALID_CARD: 'dados do cartão inválidos; confira o número e a validade'
  };
  function declined(reason) { return 'Pagamento recusado: ' + (DECLINE[reason] || 'tente outro cartão') + '.'; }

  function goToPayment(id) { window.location.assign('/checkout/' + encodeURIComponent(id)); }

  // ---------------------------------------------------------------------------------------------
  // /pay/{slug}
  function payPage() {
    var slug = app.getAttribute('data-slug');
    var base = '/api/payment-links/public/slug/' + encodeURIComponent(slug);
    var total = +app.getAttribute('data-total');
    var maxInst = +app.getAttribute('data-max-installments');
    var free = Math.max(1, +app.getAttribute('data-interest-free'));
    var rate = app.getAttribute('data-rate');
    var form = $('checkout-form');
    var submit = $('submit');
    var couponInput = $('coupon');
    var couponMsg = $('coupon-msg');
    var applyBtn = $('apply-coupon');
    var coupon = null; // { code, discount }
    var done = false;
    var buttonText = app.getAttribute('data-button-text');

    mask('document', maskDocument);
    mask('phone', maskPhone);
    mask('zip', function (v) { v = digits(v).slice(0, 8); return v.length > 5 ? v.slice(0, 5) + '-' + v.slice(5) : v; });
    mask('state', function (v) { return v.replace(/[^a-z]/gi, '').slice(0, 2).toUpperCase(); });
    cardMasks();
    var doc = $('document');
    // A field marked wrong is unmarked as soon as it is edited (checked again on the next submit);
    // the document has its own check as it is typed.
    form.addEventListener('input', function (ev) {
      var t = ev.target;
      if (t !== doc && t.getAttribute && t.getAttribute('aria-invalid') === 'true') setError(t, '');
    });
    // Checked as soon as the number is complete (not on blur: a message appearing then would move
    // the button under a finger that is already pressing it).
    doc.addEventListener('input', function () {
      var v = clean(doc.value);
      var complete = v.length === 14 || (v.length === 11 && /^\d+$/.test(v));
      setError(doc, complete && !validDocument(v) ? (v.length > 11 ? 'CNPJ inválido' : 'CPF inválido') : '');
    });

    // Price table, exactly as the server computes it (BigInt, rate read from its decimal text).
    function plan(amount, n) {
      var r = Number(rate);
      if (n <= free || !(r > 0)) return { per: Math.ceil(amount / n), total: amount, interest: false };
      var parts = String(rate).split('.');
      var frac = parts[1] || '';
      var p = BigInt(parts[0] + frac), q = BigInt(10) ** BigInt(frac.length + 2);
      var g = (q + p) ** BigInt(n), qn = q ** BigInt(n);
      var num = BigInt(amount) * p * g, den = q * (g - qn);
      var pmt = Number((BigInt(2) * num + den) / (BigInt(2) * den));
      if (pmt * n < amount) return { per: Math.ceil(amount / n), total: amount, interest: false };
      return { per: pmt, total: pmt * n, interest: true };
    }
    // The order bumps ticked: paid with the order; their ids go with the checkout.
    function bumps() { return form.querySelectorAll('input[name=orderBump]:checked'); }
    function bumpIds() { var out = [], b = bumps(); for (var i = 0; i < b.length; i++) out.push(b[i].value); return out; }
    function bumpsTotal() { var n = 0, b = bumps(); for (var i = 0; i < b.length; i++) n += +b[i].getAttribute('data-price'); return n; }
    function amount() { return total + bumpsTotal() - (coupon ? coupon.discount : 0); }
    function method() { var c = form.querySelector('input[name=paymentMethod]:checked'); return c ? c.value : 'PIX'; }
    function refresh() {
      var a = amount();
      $('total').textContent = money(a);
      var line = $('discount-line');
      line.hidden = !coupon;
      if (coupon) {
        $('discount').textContent = '− ' + money(coupon.discount);
        $('discount-code').textContent = '(' + coupon.code + ')';
      }
      var sel = $('installments');
      if (sel) {
        var chosen = +sel.value || 1;
        sel.innerHTML = '';
        for (var n = 1; n <= maxInst; n++) {
          var pl = plan(a, n);
          var o = document.createElement('option');
          o.value = String(n);
          o.textContent = n + 'x de ' + money(pl.per) + (pl.interest ? ' (total ' + money(pl.total) + ')' : ' sem juros');
          sel.appendChild(o);
        }
        sel.value = String(Math.min(chosen, maxInst));
      }
      var due = a;
      if (method() === 'CARD' && sel) due = plan(a, +sel.value).total;
      submit.textContent = buttonText || 'Pagar ' + money(due);
    }
    form.addEventListener('change', function (ev) {
      var t = ev.target;
      if (t.name === 'paymentMethod') {
        var tabs = form.querySelectorAll('.tab');
        for (var i = 0; i < tabs.length; i++) tabs[i].classList.toggle('active', tabs[i].contains(t));
        var panels = form.querySelectorAll('.panel');
        for (var j = 0; j < panels.length; j++) panels[j].hidden = panels[j].id !== 'panel-' + t.value;
      }
      if (t.name === 'orderBump') {
        t.closest('.bump').classList.toggle('on', t.checked);
        // A coupon may name a bump's product: its discount is asked again for the new order.
        if (coupon) { validateCoupon(coupon.code, true); return; }
      }
      refresh();
    });

    function couponFailure(res) {
      if (res.status === 429) {
        var min = Math.max(1, Math.ceil((+res.retryAfter || 60) / 60));
        return 'Muitas tentativas de cupom. Tente novamente em ' + min + ' min.';
      }
      return 'Cupom inválido ou indisponível.';
    }
    applyBtn.addEventListener('click', function () {
      if (coupon) { // "Remover"
        coupon = null;
        couponInput.value = '';
        couponInput.disabled = false;
        applyBtn.textContent = 'Aplicar';
        couponMsg.textContent = 'Cupom removido.';
        couponMsg.className = '';
        refresh();
        return;
      }
      var code = couponInput.value.trim();
      if (!code) { couponMsg.textContent = 'Digite o código do cupom.'; couponMsg.className = 'err'; couponInput.focus(); return; }
      validateCoupon(code, false);
    });

    function validateCoupon(code, again) {
      applyBtn.disabled = true;
      var body = { code: code, paymentLinkSlug: slug, orderBumps: bumpIds() };
      if (validDocument(doc.value)) body.clientDocument = clean(doc.value);
      var email = $('email').value.trim();
      if (email) body.clientEmail = email;
      api('POST', '/api/coupons/validate', body).then(function (res) {
        applyBtn.disabled = false;
        if (res.status === 200 && res.body && res.body.valid) {
          coupon = { code: res.body.coupon.code, discount: res.body.discountAmount };
          couponMsg.textContent = 'Cupom ' + coupon.code + ' aplicado: −\u00a0' + money(coupon.discount) + '. Novo total: ' + money(amount()) + '.';
          couponMsg.className = 'ok';
          couponInput.value = coupon.code;
          couponInput.disabled = true;
          applyBtn.textContent = 'Remover';
          formError.textContent = ''; // "not applied yet", if a payment was tried before
        } else {
          if (again) { coupon = null; couponInput.disabled = false; applyBtn.textContent = 'Aplicar'; }
          couponMsg.textContent = couponFailure(res);
          couponMsg.className = 'err';
        }
        refresh();
      }, function () {
        applyBtn.disabled = false;
        couponMsg.textContent = 'Não foi possível validar o cupom agora. Tente de novo.';
        couponMsg.className = 'err';
        refresh();
      });
    }

    function check() {
      var first = null;
      function need(el, ok, msg) { setError(el, ok ? '' : msg); if (!ok && !first) first = el; }
      var name = $('name'), email = $('email');
      need(name, name.value.trim().length > 0, 'Informe seu nome completo');
      need(email, /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.value.trim()), 'Informe um e-mail válido');
      need(doc, validDocument(doc.value), documentProblem(doc.value));
      var phone = $('phone');
      if (phone && (phone.required || phone.value)) need(phone, digits(phone.value).length >= 10, 'Informe um celular com DDD');
      var req = form.querySelectorAll('fieldset input[required]');
      for (var i = 0; i < req.length; i++) {
        var el = req[i];
        if (el.closest('[hidden]')) continue; // the boleto's payer address while another method is picked
        if (el.id === 'zip') need(el, digits(el.value).length === 8, 'CEP inválido');
        else if (el.id === 'state') need(el, /^[A-Z]{2}$/.test(el.value), 'UF inválida');
        else need(el, el.value.trim().length > 0, 'Campo obrigatório');
      }
      if (method() === 'CARD' && !cardFieldsValid() && !first) first = $('card-number');
      if (first) first.focus();
      return !first;
    }

    var FIELD_IDS = { clientName: 'name', clientEmail: 'email', clientDocument: 'document', clientPhone: 'phone', address: 'zip', 'card.number': 'card-number', 'card.holderName': 'card-name', 'card.expMonth': 'card-exp', 'card.expYear': 'card-exp', 'card.cvv': 'card-cvv' };
    var formError = $('form-error');
    function busy(on) { submit.disabled = on; if (on) submit.textContent = 'Processando…'; else refresh(); }
    function tracking() {
      var out = {}, q = new URLSearchParams(window.location.search), keys = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term', 'src', 'sck'];
      for (var i = 0; i < keys.length; i++) { var v = q.get(keys[i]); if (v) out[keys[i]] = v.slice(0, 255); }
      return out;
    }

    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      formError.textContent = '';
      if (!check()) { formError.textContent = 'Confira os campos destacados.'; return; }
      // A code typed but not applied: say so, rather than charge the full price without it.
      if (!coupon && couponInput && couponInput.value.trim()) {
        couponMsg.textContent = 'Toque em Aplicar para usar o cupom, ou apague o código para pagar sem ele.';
        couponMsg.className = 'err';
        formError.textContent = 'O cupom digitado ainda não foi aplicado.';
        couponInput.focus();
        return;
      }
      var m = method();
      var body = {
        clientName: $('name').value.trim(),
        clientEmail: $('email').value.trim(),
        clientDocument: clean(doc.value),
        paymentMethod: m,
        trackingParams: tracking()
      };
      var phone = $('phone');
      if (phone && phone.value) body.clientPhone = digits(phone.value);
      if ($('zip') && !$('zip').closest('[hidden]')) {
        body.address = { zipCode: digits($('zip').value), street: $('street').value.trim(), number: $('number').value.trim(), neighborhood: $('neighborhood').value.trim(), city: $('city').value.trim(), state: $('state').value };
        if ($('complement').value.trim()) body.address.complement = $('complement').value.trim();
      }
      if (coupon) body.couponCode = coupon.code;
      if (bumpIds().length) body.orderBumps = bumpIds();
      // The affiliate of the promotion URL, also for browsers that drop the click cookie.
      var aff = new URLSearchParams(window.location.search).get('aff');
      if (aff && /^[A-Za-z0-9]{1,12}-[A-Za-z0-9]{6}$/.test(aff)) body.affiliateCode = aff;
      if (m === 'CARD') { body.card = cardData(); body.installments = +$('installments').value; }
      busy(true);
      api('POST', base + '/checkout', body).then(function (res) {
        if (res.status === 201) {
          var tx = res.body.transaction;
          if (m !== 'CARD' || tx.status === 'PAID') { done = true; goToPayment(tx.id); return; }
          busy(false);
          formError.textContent = declined(tx.failureReason);
          $('card-number').focus();
          return;
        }
        busy(false);
        var b = res.body || {};
        if (res.status === 429) formError.textContent = 'Muitas tentativas. Aguarde alguns minutos e tente de novo.';
        else if (b.code === 'INVALID_COUPON') { coupon = null; couponInput.disabled = false; applyBtn.textContent = 'Aplicar'; couponMsg.textContent = 'Cupom inválido ou indisponível.'; couponMsg.className = 'err'; refresh(); formError.textContent = 'O cupom não pôde ser aplicado. Remova-o ou tente outro.'; }
        else if (b.code === 'INSUFFICIENT_STOCK') formError.textContent = 'Produto esgotado.';
        else if (b.code === 'PAYMENT_LINK_UNAVAILABLE') formError.textContent = 'Este link de pagamento não está mais disponível.';
        else if (b.code === 'INVALID_DOCUMENT') { setError(doc, 'CPF ou CNPJ inválido'); doc.focus(); formError.textContent = 'Confira os campos destacados.'; }
        else {
          var errs = b.errors || [], shown = false;
          for (var i = 0; i < errs.length; i++) {
            var id = FIELD_IDS[errs[i].field] || (errs[i].field.indexOf('address.') === 0 ? { zipCode: 'zip', street: 'street', number: 'number', neighborhood: 'neighborhood', city: 'city', state: 'state' }[errs[i].field.slice(8)] : null);
            if (id && $(id)) { setError($(id), 'Valor inválido'); if (!shown) $(id).focus(); shown = true; }
          }
          formError.textContent = shown ? 'Confira os campos destacados.' : 'Não foi possível concluir o pagamento. Tente novamente.';
        }
      }, function () {
        busy(false);
        formError.textContent = 'Sem conexão. Verifique a internet e tente de novo.';
      });
    });

    // Cart abandonment: the customer typed an e-mail and is leaving without paying.
    var reported = '';
    function abandon() {
      var email = $('email').value.trim();
      if (done || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || reported === email || !navigator.sendBeacon) return;
      var body = { clientEmail: email };
      if ($('name').value.trim()) body.clientName = $('name').value.trim().slice(0, 255);
      if (validDocument(doc.value)) body.clientDocument = clean(doc.value);
      var phone = $('phone');
      if (phone && digits(phone.value).length >= 10) body.clientPhone = digits(phone.value);
      reported = email;
      navigator.sendBeacon(base + '/cart-abandonment', new Blob([JSON.stringify(body)], { type: 'application/json' }));
    }
    document.addEventListener('visibilitychange', function () { if (document.visibilityState === 'hidden') abandon(); });
    window.addEventListener('pagehide', abandon);

    refresh();
  }

  // ---------------------------------------------------------------------------------------------
  // /checkout/{transactionId}
  function checkoutPage() {
    var id = app.getAttribute('data-tx');
    var redirect = app.getAttribute('data-redirect');
    var status = $('status');
    var heading = $('heading');

    function track() {
      if (typeof window.fbq === 'function') window.fbq('track', 'Purchase', { value: +app.getAttribute('data-amount') / 100, currency: 'BRL' });
    }
    var offerId = app.getAttribute('data-offer');
    function paid() {
      // An upsell waits for this payment: the page, rendered again, shows it.
      if (offerId) { window.location.reload(); return; }
      heading.textContent = 'Pagamento confirmado';
      var section = heading.parentNode;
      var keep = [heading, section.children[1], section.children[2]];
      for (var i = section.children.length - 1; i >= 0; i--) if (keep.indexOf(section.children[i]) < 0) section.removeChild(section.children[i]);
      var p = document.createElement('p');
      p.id = 'status'; p.className = 'status ok'; p.setAttribute('role', 'status'); p.setAttribute('aria-live', 'polite');
      p.textContent = 'Pagamento confirmado';
      section.appendChild(p);
      var note = document.createElement('p');
      note.className = 'muted center';
      note.textContent = redirect ? 'Você será redirecionado em instantes.' : 'Obrigado! Você já pode fechar esta página.';
      section.appendChild(note);
      heading.focus();
      track();
      if (redirect) setTimeout(function () { window.location.assign(redirect); }, 3000);
    }
    var ENDED = { EXPIRED: 'O prazo para pagar terminou. Peça um novo link ao vendedor.', FAILED: 'Pagamento não aprovado.', CANCELLED: 'Este pagamento foi cancelado.' };

    if (app.getAttribute('data-status') === 'PAID' && redirect && !offerId) {
      track();
      setTimeout(function () { window.location.assign(redirect); }, 3000);
    }
    if (offerId && $('offer-accept')) offer(offerId, redirect);
    var issuing = app.getAttribute('data-boleto') === 'ISSUING';
    if (app.getAttribute('data-poll')) {
      var timer = setInterval(function () {
        if (document.visibilityState === 'hidden') return;
        api('GET', '/api/checkout/transactions/' + encodeURIComponent(id) + '/status').then(function (res) {
          if (res.status !== 200 || !res.body) return;
          var s = res.body.status;
          // A boleto its bank has just registered: the page, rendered again, shows its numbers and Pix.
          if (s === 'PENDING' && issuing && res.body.boleto === 'ISSUED') { clearInterval(timer); window.location.reload(); }
          else if (s === 'PAID') { clearInterval(timer); paid(); }
          else if (ENDED[s]) { clearInterval(timer); status.textContent = ENDED[s]; status.className = 'status err'; }
        }, function () {});
      }, +(app.getAttribute('data-poll-ms') || 2500));
    }

    var cardForm = $('card-form');
    if (cardForm) {
      cardMasks();
      var submit = $('submit');
      var formError = $('form-error');
      var label = submit.textContent;
      cardForm.addEventListener('submit', function (ev) {
        ev.preventDefault();
        formError.textContent = '';
        if (!cardFieldsValid()) { $('card-number').focus(); formError.textContent = 'Confira os dados do cartão.'; return; }
        submit.disabled = true;
        submit.textContent = 'Processando…';
        api('POST', '/api/checkout/transactions/' + encodeURIComponent(id) + '/card', { card: cardData() }).then(function (res) {
          if (res.status === 200 && res.body.transaction.status === 'PAID') { cardForm.parentNode.removeChild(cardForm); paid(); return; }
          submit.disabled = false;
          submit.textContent = label;
          if (res.status === 200) { formError.textContent = declined(res.body.transaction.failureReason); cardForm.querySelector('button').disabled = true; }
          else if (res.status === 429) formError.textContent = 'Muitas tentativas. Aguarde alguns minutos e tente de novo.';
          else formError.textContent = 'Não foi possível pagar: confira os dados do cartão.';
        }, function () { submit.disabled = false; submit.textContent = label; formError.textContent = 'Sem conexão. Tente de novo.'; });
      });
    }
  }

  // The upsell or downsell on a paid payment's page: one click accepts (the same card, or a new PIX).
  function offer(offerId, redirect) {
    var accept = $('offer-accept'), decline = $('offer-decline'), error = $('offer-error'), box = accept.parentNode;
    var path = '/api/checkout/offers/' + encodeURIComponent(offerId);
    function busy(on) { accept.disabled = on; decline.disabled = on; }
    function finish(text) {
      box.innerHTML = '';
      var p = document.createElement('p');
      p.className = 'status ok'; p.setAttribute('role', 'status');
      p.textContent = text;
      box.appendChild(p);
      if (redirect) setTimeout(function () { window.location.assign(redirect); }, 3000);
    }
    accept.addEventListener('click', function () {
      busy(true);
      error.textContent = '';
      api('POST', path + '/accept').then(function (res) {
        var tx = res.body && res.body.transaction;
        if (res.status === 200 && tx.status === 'PAID') return finish('Compra adicional confirmada. Obrigado!');
        if (res.status === 200 && tx.status === 'PENDING') return window.location.assign(tx.checkoutUrl);
        busy(false);
        if (res.status === 200) error.textContent = declined(tx.failureReason);
        else if (res.status === 409) finish('Esta oferta não está mais disponível. Seu primeiro pagamento está confirmado.');
        else error.textContent = 'Não foi possível concluir agora. Tente de novo.';
      }, function () { busy(false); error.textContent = 'Sem conexão. Tente de novo.'; });
    });
    decline.addEventListener('click', function () {
      busy(true);
      api('POST', path + '/decline').then(function (res) {
        if (res.status === 200 && res.body.nextOfferId) return window.location.reload();
        finish('Tudo certo! Seu pagamento está confirmado.');
      }, function () { busy(false); error.textContent = 'Sem conexão. Tente de novo.'; });
    });
  }

  // Copy buttons (PIX code, digitable line) and the print button, on every page that has them; they
  // are shown only once they work (hidden in the markup for browsers without JavaScript).
  function copy(btn) {
    var el = $(btn.getAttribute('data-copy'));
    var text = el.value || el.textContent;
    var ok = function () { var old = btn.textContent; btn.textContent = 'Copiado!'; setTimeout(function () { btn.textContent = old; }, 2000); };
    var fallback = function () {
      if (el.select) el.select();
      else { var r = document.createRange(); r.selectNodeContents(el); var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(r); }
      document.execCommand('copy');
      ok();
    };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(ok, fallback);
    else fallback();
  }
  var buttons = document.querySelectorAll('[data-copy]');
  for (var i = 0; i < buttons.length; i++) {
    buttons[i].hidden = false;
    buttons[i].addEventListener('click', function (ev) { copy(ev.currentTarget); });
  }
  var printer = document.querySelector('[data-print]');
  if (printer) {
    printer.hidden = false;
    printer.addEventListener('click', function () { window.print(); });
  }

  // ---------------------------------------------------------------------------------------------
  // /boleto/{id} while its bank registers it: shown again (with its numbers) once the status says it
  // is issued, or that the payment ended; one reload, where a meta refresh would reload every time.
  function boletoIssuingPage() { reloadWhenSettled(app.getAttribute('data-tx'), true); }

  // A pending payment whose page reads differently once it moves (paid or ended; with `issuing`, a
  // boleto its bank has just issued): polls its status and reloads the page once when it changes.
  function reloadWhenSettled(id, issuing) {
    var timer = setInterval(function () {
      if (document.visibilityState === 'hidden') return;
      api('GET', '/api/checkout/transactions/' + encodeURIComponent(id) + '/status').then(function (res) {
        if (res.status !== 200 || !res.body) return;
        if (res.body.status !== 'PENDING' || (issuing && res.body.boleto === 'ISSUED')) { clearInterval(timer); window.location.reload(); }
      }, function () {});
    }, +(app.getAttribute('data-poll-ms') || 2500));
  }

  // ---------------------------------------------------------------------------------------------
  // /subscribe/{planId}: subscribe, then the subscription's page with the confirmation (and the first payment: PIX, boleto)
  function subscribePage() {
    var planId = app.getAttribute('data-plan');
    var form = $('checkout-form');
    var submit = $('submit');
    var label = submit.textContent;
    var formError = $('form-error');
    var doc = $('document');
    mask('document', maskDocument);
    mask('phone', maskPhone);
    mask('zip', function (v) { v = digits(v).slice(0, 8); return v.length > 5 ? v.slice(0, 5) + '-' + v.slice(5) : v; });
    mask('state', function (v) { return v.replace(/[^a-z]/gi, '').slice(0, 2).toUpperCase(); });
    cardMasks();
    function method() { var c = form.querySelector('input[name=paymentMethod]:checked'); return c ? c.value : 'CARD'; }
    // The payer's address: in the boleto's panel where the bank registers boletos, asked with Boleto only.
    function withAddress() { return method() === 'BOLETO' && !!$('zip'); }
    function addressValid(need) {
      var req = $('panel-BOLETO').querySelectorAll('input[required]');
      for (var i = 0; i < req.length; i++) {
        var el = req[i];
        if (el.id === 'zip') need(el, digits(el.value).length === 8, 'CEP inválido');
        else if (el.id === 'state') need(el, /^[A-Z]{2}$/.test(el.value), 'UF inválida');
        else need(el, el.value.trim().length > 0, 'Campo obrigatório');
      }
    }
    function address() {
      var a = { zipCode: digits($('zip').value), street: $('street').value.trim(), number: $('number').value.trim(), neighborhood: $('neighborhood').value.trim(), city: $('city').value.trim(), state: $('state').value };
      if ($('complement').value.trim()) a.complement = $('complement').value.trim();
      return a;
    }
    form.addEventListener('change', function (ev) {
      if (ev.target.name !== 'paymentMethod') return;
      var tabs = form.querySelectorAll('.tab');
      for (var i = 0; i < tabs.length; i++) tabs[i].classList.toggle('active', tabs[i].querySelector('input').checked);
      var panels = form.querySelectorAll('.panel');
      for (var j = 0; j < panels.length; j++) panels[j].hidden = panels[j].id !== 'panel-' + method();
    });
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      formError.textContent = '';
      var first = null;
      function need(el, ok, msg) { setError(el, ok ? '' : msg); if (!ok && !first) first = el; }
      need($('name'), $('name').value.trim().length > 0, 'Informe seu nome completo');
      need($('email'), /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test($('email').value.trim()), 'Informe um e-mail válido');
      need(doc, validDocument(doc.value), documentProblem(doc.value));
      if ($('phone').value) need($('phone'), digits($('phone').value).length >= 10, 'Informe um celular com DDD');
      if (withAddress()) addressValid(need);
      if (method() === 'CARD' && !cardFieldsValid() && !first) first = $('card-number');
      if (first) { first.focus(); formError.textContent = 'Confira os campos destacados.'; return; }
      var body = { planId: planId, clientName: $('name').value.trim(), clientEmail: $('email').value.trim(), clientDocument: clean(doc.value), paymentMethod: method() };
      if (withAddress()) body.clientAddress = address();
      if ($('phone').value) body.clientPhone = digits($('phone').value);
      if ($('coupon').value.trim()) body.couponCode = $('coupon').value.trim();
      if (body.paymentMethod === 'CARD') body.card = cardData();
      submit.disabled = true;
      submit.textContent = 'Processando…';
      api('POST', '/api/subscriptions/checkout', body).then(function (res) {
        if (res.status === 201) {
          var sub = res.body.subscription;
          // The subscription's page opens with the confirmation (and, for PIX and boleto, the first charge to pay).
          if (sub.payment || sub.status !== 'INCOMPLETE') { window.location.assign(sub.manageUrl + '&assinado=1'); return; }
        }
        submit.disabled = false;
        submit.textContent = label;
        var b = res.body || {};
        if (res.status === 201) formError.textContent = 'Pagamento recusado: tente outro cartão.';
        else if (res.status === 429) formError.textContent = 'Muitas tentativas. Aguarde alguns minutos e tente de novo.';
        else if (b.code === 'PLAN_FULL') formError.textContent = 'As vagas deste plano se esgotaram.';
        else if (b.code === 'PLAN_UNAVAILABLE') formError.textContent = 'Este plano não está mais disponível.';
        else if (b.code === 'INVALID_COUPON') { setError($('coupon'), 'Cupom inválido ou indisponível'); $('coupon').focus(); formError.textContent = 'Confira os campos destacados.'; }
        else if (b.code === 'INVALID_DOCUMENT') { setError(doc, 'CPF ou CNPJ inválido'); doc.focus(); formError.textContent = 'Confira os campos destacados.'; }
        else if ($('zip') && b.errors && b.errors[0] && /^clientAddress/.test(b.errors[0].field)) {
          var bad = b.errors[0].field === 'clientAddress.state' ? $('state') : $('zip');
          setError(bad, bad.id === 'state' ? 'UF inválida' : 'Confira o endereço');
          bad.focus();
          formError.textContent = 'Confira o endereço do pagador.';
        }
        else formError.textContent = 'Não foi possível concluir a assinatura. Confira os dados e tente novamente.';
      }, function () {
        submit.disabled = false;
        submit.textContent = label;
        formError.textContent = 'Sem conexão. Verifique a internet e tente de novo.';
      });
    });
  }

  // ---------------------------------------------------------------------------------------------
  // /subscription/{id}?t=...: update the card, pause, cancel (every action through the signed link)
  function subscriptionPage() {
    var base = '/api/subscriptions/self/' + encodeURIComponent(app.getAttribute('data-id'));
    var q = '?t=' + encodeURIComponent(app.getAttribute('data-token'));
    var msg = $('action-msg');
    if (app.getAttribute('data-pay-tx')) reloadWhenSettled(app.getAttribute('data-pay-tx'), app.getAttribute('data-boleto') === 'ISSUING');
    function act(path, body, out, button) {
      button.disabled = true;
      return api('POST', base + path + q, body).then(function (res) {
        if (res.status === 200) { window.location.reload(); return; }
        button.disabled = false;
        out.className = 'err';
        out.textContent = res.status === 429 ? 'Muitas alterações seguidas. Aguarde alguns minutos.' : res.status === 404 ? 'Este link expirou. Use o link do e-mail mais recente.' : 'Não foi possível concluir. Tente novamente.';
      }, function () { button.disabled = false; out.className = 'err'; out.textContent = 'Sem conexão. Tente de novo.'; });
    }
    var cardForm = $('card-form');
    if (cardForm) {
      cardMasks();
      cardForm.addEventListener('submit', function (ev) {
        ev.preventDefault();
        if (!cardFieldsValid()) { $('card-number').focus(); return; }
        act('/card', { card: cardData() }, $('card-error'), $('card-submit'));
      });
    }
    var pause = $('pause');
    if (pause) pause.addEventListener('click', function () {
      if (window.confirm('Pausar a assinatura? Nenhuma cobrança será feita até você retomar.')) act('/pause', {}, msg, pause);
    });
    var cancelForm = $('cancel-form');
    if (cancelForm) cancelForm.addEventListener('submit', function (ev) {
      ev.preventDefault();
      if (!window.confirm('Cancelar a assinatura? Ela continua até o fim do período já pago.')) return;
      var reason = $('reason').value;
      act('/cancel', reason ? { reason: reason } : {}, msg, $('cancel'));
    });
  }

  var kind = app.getAttribute('data-page');
  if (kind === 'pay') payPage();
  else if (kind === 'subscribe') subscribePage();
  else if (kind === 'subscription') subscriptionPage();
  else if (kind === 'checkout') checkoutPage();
  else if (kind === 'boleto-issuing') boletoIssuingPage();
})();
