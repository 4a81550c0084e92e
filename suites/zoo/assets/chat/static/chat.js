// Huddle web client: renders the whole UI from the JSON API (the server ships only a loading shell).
// Routes (relative to <base href>): "login", "channels/<name>"; anything else redirects.
(function () {
  'use strict';

  var root = document.getElementById('root');
  var base = document.querySelector('base').getAttribute('href');
  var delay = parseInt(document.body.getAttribute('data-hydration-delay-ms') || '0', 10) || 0;
  // late_hydration: the delay after the load event (data-hydration-*: hydration.go hydrationDelay): load-factor times the
  // page's load time (performance.now() at the load event), at least delay-ms, at most max-ms.
  function hydrationDelay() {
    var attr = function (n) { return parseInt(document.body.getAttribute('data-hydration-' + n) || '0', 10) || 0; };
    return Math.min(attr('max-ms'), Math.max(delay, attr('load-factor') * performance.now()));
  }
  var TEAM = 'Northwind';

  var state = {
    me: null,
    channels: [],
    channel: null, // current channel object
    posts: [],
    loginError: '',
    postError: '',
    loginId: '',
    sending: false
  };

  // ---- helpers -------------------------------------------------------------------------------------------

  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) return;
        if (k === 'text') el.textContent = v;
        else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v);
        else el.setAttribute(k, v === true ? '' : String(v));
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) c.forEach(function (x) { if (x) el.appendChild(x); });
      else el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return el;
  }

  function api(method, path, body) {
    var opt = { method: method, credentials: 'same-origin', headers: { 'Accept': 'application/json' } };
    if (body !== undefined) {
      opt.headers['Content-Type'] = 'application/json';
      opt.body = JSON.stringify(body);
    }
    return fetch('api/v4/' + path, opt).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        return { ok: res.ok, status: res.status, data: data };
      });
    }, function () {
      return { ok: false, status: 0, data: { message: 'Cannot reach the server. Please try again.' } };
    });
  }

  function route() {
    var p = location.pathname;
    return p.indexOf(base) === 0 ? p.slice(base.length) : '';
  }

  function setURL(path, replace) {
    if (route() === path) return;
    history[replace ? 'replaceState' : 'pushState'](null, '', base + path);
  }

  function channelByName(name) {
    for (var i = 0; i < state.channels.length; i++) {
      if (state.channels[i].name === name) return state.channels[i];
    }
    return null;
  }

  function mount(view, title) {
    document.title = title;
    root.replaceChildren(view);
  }

  // ---- data ----------------------------------------------------------------------------------------------

  function loadChannels() {
    return api('GET', 'channels').then(function (r) {
      state.channels = r.ok ? r.data : [];
    });
  }

  // ---- routing -------------------------------------------------------------------------------------------

  function dispatch(replace) {
    var r = route();
    if (!state.me) {
      setURL('login', true);
      renderLogin();
      return Promise.resolve();
    }
    var m = /^channels\/([a-z0-9-]+)$/.exec(r);
    var ch = m && channelByName(m[1]);
    if (!ch) ch = channelByName('town-square') || state.channels[0];
    return openChannel(ch.name, replace === undefined ? true : replace);
  }

  function openChannel(name, replace) {
    var ch = channelByName(name);
    setURL('channels/' + name, replace);
    return api('GET', 'channels/' + name + '/posts').then(function (r) {
      if (r.status === 401) {
        state.me = null;
        return dispatch();
      }
      state.channel = ch;
      state.posts = r.ok ? r.data : [];
      state.postError = '';
      renderChannel();
      var list = document.getElementById('post-list');
      if (list) list.scrollTop = list.scrollHeight;
    });
  }

  // ---- views ---------------------------------------------------------------------------------------------

  function renderLogin() {
    var idInput = h('input', { id: 'input_loginId', name: 'loginId', type: 'text', autocomplete: 'username',
      autocapitalize: 'off', spellcheck: 'false', 'class': 'form-control' });
    idInput.value = state.loginId;
    var pwInput = h('input', { id: 'input_password-input', name: 'password', type: 'password',
      autocomplete: 'current-password', 'class': 'form-control' });
    var err = state.loginError
      ? h('div', { 'class': 'login-error', role: 'alert', text: state.loginError }) : null;
    var form = h('form', { 'class': 'login-form', novalidate: true, onsubmit: function (e) {
      e.preventDefault();
      state.loginId = idInput.value;
      var id = idInput.value.trim();
      var pw = pwInput.value;
      if (!id || !pw) {
        state.loginError = !id ? 'Please enter your email or username' : 'Please enter your password';
        renderLogin();
        return;
      }
      api('POST', 'users/login', { login_id: id, password: pw }).then(function (r) {
        if (!r.ok) {
          state.loginError = (r.data && r.data.message) || 'Login failed.';
          renderLogin();
          return;
        }
        state.loginError = '';
        state.me = r.data;
        return loadChannels().then(function () { return openChannel('town-square', false); });
      });
    } },
      h('div', { 'class': 'field' }, h('label', { 'for': 'input_loginId', text: 'Email or Username' }), idInput),
      h('div', { 'class': 'field' }, h('label', { 'for': 'input_password-input', text: 'Password' }), pwInput),
      h('button', { type: 'submit', id: 'saveSetting', 'class': 'btn btn-primary btn-block', text: 'Log in' })
    );
    var view = h('div', { 'class': 'login-body' },
      h('div', { 'class': 'login-card' },
        h('img', { 'class': 'login-logo', src: 'static/logo.svg', alt: '', width: 48, height: 48 }),
        h('h1', { text: 'Log in to your account' }),
        h('p', { 'class': 'login-subtitle', text: 'Collaborate with the ' + TEAM + ' team in real time.' }),
        err, form,
        h('p', { 'class': 'login-help', text: 'Trouble logging in? Ask an administrator to reset your password.' })
      )
    );
    mount(view, 'Log in - Huddle');
  }

  function renderPost(p) {
    return h('article', { 'class': 'post' + (p.author === (state.me && state.me.username) ? ' post--mine' : ''),
      'data-post-id': p.id },
      h('div', { 'class': 'post-avatar', 'aria-hidden': 'true', text: (p.author_display || p.author).charAt(0) }),
      h('div', { 'class': 'post-body' },
        h('div', { 'class': 'post-header' },
          h('strong', { 'class': 'post-author', text: p.author_display || p.author }), ' ',
          h('span', { 'class': 'post-time', text: p.time })),
        h('p', { 'class': 'post-message', text: p.message })));
  }

  function renderChannel() {
    var ch = state.channel;
    var me = state.me;
    var links = state.channels.map(function (c) {
      var cur = c.name === ch.name;
      return h('li', null, h('a', { href: 'channels/' + c.name, 'class': 'sidebar-link' + (cur ? ' active' : ''),
        'aria-current': cur ? 'page' : null, onclick: function (e) {
          if (e.metaKey || e.ctrlKey || e.shiftKey) return;
          e.preventDefault();
          openChannel(c.name, false);
        } }, h('span', { 'class': 'hash', 'aria-hidden': 'true', text: '#' }), c.display_name));
    });
    var box = h('textarea', { id: 'post_textbox', rows: 2, 'class': 'composer-input',
      'aria-label': 'Write to ' + ch.display_name, placeholder: 'Write to ' + ch.display_name });
    var send = function () {
      var text = box.value;
      if (!text.trim() || state.sending) return;
      state.sending = true;
      api('POST', 'posts', { channel: ch.name, message: text }).then(function (r) {
        state.sending = false;
        if (r.status === 401) {
          state.me = null;
          dispatch();
          return;
        }
        if (!r.ok) {
          state.postError = (r.data && r.data.message) || 'Your message could not be sent.';
          var keep = box.value;
          renderChannel();
          document.getElementById('post_textbox').value = keep;
          return;
        }
        state.postError = '';
        state.posts.push(r.data);
        renderChannel();
        var list = document.getElementById('post-list');
        list.scrollTop = list.scrollHeight;
        document.getElementById('post_textbox').focus();
      });
    };
    box.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        send();
      }
    });
    var view = h('div', { 'class': 'app' },
      h('aside', { 'class': 'sidebar', 'aria-label': 'Sidebar' },
        h('div', { 'class': 'team-header' },
          h('div', { 'class': 'team-name', text: TEAM }),
          h('div', { 'class': 'team-user', text: '@' + me.username })),
        h('nav', { 'aria-label': 'Channels' },
          h('h2', { 'class': 'sidebar-heading', text: 'Channels' }),
          h('ul', { 'class': 'sidebar-list' }, links)),
        h('button', { type: 'button', 'class': 'btn btn-link logout', text: 'Log out', onclick: function () {
          api('POST', 'users/logout').then(function () {
            state.me = null;
            state.channels = [];
            state.loginId = '';
            dispatch();
          });
        } })),
      h('main', { 'class': 'channel-view' },
        h('header', { 'class': 'channel-header' },
          h('h1', { 'class': 'channel-title', text: ch.display_name }),
          h('p', { 'class': 'channel-purpose', text: ch.purpose })),
        h('div', { id: 'post-list', 'class': 'post-list', role: 'log', 'aria-label': 'Messages in ' + ch.display_name },
          state.posts.map(renderPost)),
        state.postError ? h('div', { 'class': 'post-error', role: 'alert', text: state.postError }) : null,
        h('form', { 'class': 'composer', onsubmit: function (e) { e.preventDefault(); send(); } },
          box,
          h('button', { type: 'submit', 'class': 'btn btn-primary send', text: 'Send' }))));
    mount(view, ch.display_name + ' - ' + TEAM + ' Huddle');
  }

  // ---- boot ----------------------------------------------------------------------------------------------

  // The server embeds the session's initial data (user, channels, the routed channel's posts) in the shell, so
  // the first render needs no request: at once, or after the configured hydration delay.
  function boot() {
    var init = {};
    try { init = JSON.parse(document.body.getAttribute('data-initial') || '{}') || {}; } catch (e) { init = {}; }
    state.me = init.me || null;
    state.channels = init.channels || [];
    if (!state.me) {
      setURL('login', true);
      renderLogin();
      return;
    }
    var ch = channelByName(init.channel) || channelByName('town-square');
    state.channel = ch;
    state.posts = init.posts || [];
    setURL('channels/' + ch.name, true);
    renderChannel();
    var list = document.getElementById('post-list');
    if (list) list.scrollTop = list.scrollHeight;
  }

  window.addEventListener('popstate', function () { dispatch(true); });
  // The delay runs from the load event (at once when the document has already loaded), not from this
  // script's start: a harness waits for the load before its first snapshot.
  function afterLoad(f) {
    if (document.readyState === 'complete') f(); else window.addEventListener('load', f, { once: true });
  }
  if (delay > 0) afterLoad(function () { setTimeout(boot, hydrationDelay()); }); else boot();
})();
