/**
 * The image comparison views, shared by the report and the live page: `initCompare(box)` makes
 * one `.compare` element (the markup of html-case.ts) switch between side by side, slider
 * (swipe) and blink, and zoom. It expects `all(selector, root)` and `press(group, button)` in
 * scope; `data-before` and `data-after` on the box name the two images (default: Expected and
 * Actual).
 */
export const COMPARE_SCRIPT = String.raw`
  // Image comparisons: side by side, slider (swipe) or blink; zoom fit, 1x, 2x, 4x.
  function initCompare(box) {
    var timer = null;
    var blink = box.querySelector('.blink');
    var label = box.querySelector('.blink-label');
    var range = box.querySelector('.slider-controls input');
    var over = box.querySelector('.swipe .over');
    var handle = box.querySelector('.swipe .handle');
    var zoom = 'fit';
    // What the two images are: the golden and the capture, or two runs' captures.
    var before = box.getAttribute('data-before') || 'Expected';
    var after = box.getAttribute('data-after') || 'Actual';

    function showBlink(actual) {
      if (!blink) return;
      blink.classList.toggle('show-actual', actual);
      if (label) { label.textContent = actual ? after : before; label.className = 'blink-label ' + (actual ? 'actual' : 'expected'); }
    }
    function stopBlink() { if (timer) { clearInterval(timer); timer = null; } }
    function startBlink() {
      stopBlink();
      timer = setInterval(function () { showBlink(!blink.classList.contains('show-actual')); }, 600);
    }
    function setMode(mode) {
      box.setAttribute('data-mode', mode);
      all('.view', box).forEach(function (v) { v.hidden = v.getAttribute('data-view') !== mode; });
      if (mode === 'blink') { showBlink(false); startBlink(); } else stopBlink();
    }
    function sizeImage(img) {
      if (zoom === 'fit') { img.style.width = ''; return; }
      if (img.naturalWidth > 0) img.style.width = (img.naturalWidth * Number(zoom)) + 'px';
    }
    function setZoom(z) {
      zoom = z;
      box.classList.toggle('zoom-fit', z === 'fit');
      all('img', box).forEach(sizeImage);
    }
    function setSwipe(pct) {
      if (over) over.style.clipPath = 'inset(0 0 0 ' + pct + '%)';
      if (handle) handle.style.left = 'calc(' + pct + '% - 1px)';
    }
    all('img', box).forEach(function (img) { img.addEventListener('load', function () { sizeImage(img); }); });
    all('[data-mode]', box.querySelector('.modes')).forEach(function (b) {
      b.addEventListener('click', function () { press(b.parentNode, b); setMode(b.getAttribute('data-mode')); });
    });
    all('[data-zoom]', box).forEach(function (b) {
      b.addEventListener('click', function () { press(b.parentNode, b); setZoom(b.getAttribute('data-zoom')); });
    });
    if (range) range.addEventListener('input', function () { setSwipe(Number(range.value)); });
    // Dragging on the image moves the handle too; the range input stays for the keyboard.
    var swipe = box.querySelector('.swipe');
    if (swipe && range) {
      var dragging = false;
      var follow = function (e) {
        var r = swipe.getBoundingClientRect();
        var pct = Math.max(0, Math.min(100, ((e.clientX - r.left) / r.width) * 100));
        range.value = String(Math.round(pct));
        setSwipe(pct);
      };
      swipe.addEventListener('pointerdown', function (e) { dragging = true; swipe.setPointerCapture(e.pointerId); follow(e); });
      swipe.addEventListener('pointermove', function (e) { if (dragging) follow(e); });
      swipe.addEventListener('pointerup', function () { dragging = false; });
    }
    if (blink) blink.addEventListener('click', function () {
      if (timer) stopBlink(); else startBlink();
      showBlink(!blink.classList.contains('show-actual'));
    });
    setSwipe(range ? Number(range.value) : 50);
    setZoom('fit');
    setMode('side');
  }
`;

/**
 * The report's script, inlined and allowed by the page's Content-Security-Policy through its
 * hash (so nothing injected into the page could run even if escaping were ever wrong). The
 * page reads fully without it; it adds filters, the slider and blink views, zoom and the
 * step arguments, which are rendered on demand from the embedded JSON so that a cohort of
 * thousands of cases does not build thousands of hidden argument trees.
 */
export const HTML_SCRIPT = String.raw`
(function () {
  'use strict';
  var doc = document;
  function all(sel, root) { return Array.prototype.slice.call((root || doc).querySelectorAll(sel)); }
  function press(group, button) { all('button', group).forEach(function (b) { b.setAttribute('aria-pressed', String(b === button)); }); }

  // Missing images (an artefact folder not downloaded with the report) show their path instead.
  function broken(img) { var f = img.closest('figure'); if (f) f.classList.add('broken'); }
  doc.addEventListener('error', function (e) { if (e.target && e.target.tagName === 'IMG') broken(e.target); }, true);
  all('img').forEach(function (img) { if (img.complete && img.naturalWidth === 0) broken(img); });

  // The share of each status in the summary bar (style attributes would be refused by the page's policy).
  all('.bar i').forEach(function (i) { i.style.flexGrow = i.getAttribute('data-share'); });

  // Filters: the summary tiles choose statuses, the search box matches names, playbooks and studies.
  // The list shows a window of the matching cases, a page at a time ("Show more"). A large
  // run's later cases wait in the page as packed pages of markup (gzip-compressed, in base64),
  // and an index of every case's status and search text says which of them match, so a search
  // unpacks only the pages that hold the cases it shows, and the report opens at once.
  var list = doc.getElementById('cases');
  var more = doc.getElementById('more');
  var shown = doc.getElementById('shown');
  var search = doc.getElementById('search');
  var pages = all('script[type="text/x-wbplay-cases"]');
  var indexEl = doc.getElementById('wbplay-index');
  var total = Number(list && list.getAttribute('data-total') || 0);
  var perPage = Number(list && list.getAttribute('data-page') || 0) || total;
  // Case elements by position in the list: the first page's now, the others once unpacked.
  var byPosition = [];
  all('.case', list).forEach(function (c) { byPosition[positionOf(c)] = c; });
  function positionOf(c) { return Number(c.id.slice('case-'.length)); }
  var index = null;
  function entries() {
    if (index === null) {
      index = indexEl ? JSON.parse(indexEl.textContent || '[]') : byPosition.map(function (c) {
        return [c.getAttribute('data-status'), c.getAttribute('data-search') || ''];
      });
    }
    return index;
  }
  function unpack(page) {
    if (typeof DecompressionStream === 'undefined') return Promise.reject(new Error('no DecompressionStream'));
    var text = atob((page.textContent || '').trim());
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
  }
  var unpacked = [];
  var unpackable = true;
  // Page k (from 0) of the packed pages holds the cases from position (k + 1) x perPage on.
  function unpackPage(k) {
    if (!unpacked[k]) {
      unpacked[k] = unpack(pages[k]).then(function (markup) {
        var holder = doc.createElement('template');
        holder.innerHTML = markup;
        Array.prototype.slice.call(holder.content.children).forEach(function (c) {
          all('.compare', c).forEach(initCompare);
          initArgs(c);
          byPosition[positionOf(c)] = c;
        });
      }, function () { unpackable = false; });
    }
    return unpacked[k];
  }

  var filter = 'all';
  var limit = perPage;
  var drawing = 0;
  function matching() {
    var words = (search && search.value || '').toLowerCase().split(/\s+/).filter(Boolean);
    var found = [];
    if (filter === 'all' && words.length === 0) {
      for (var p = 0; p < total; p++) found.push(p);
      return found;
    }
    entries().forEach(function (e, p) {
      var ok = filter === 'all' || (filter === 'problems' ? (e[0] === 'failed' || e[0] === 'error') : e[0] === filter);
      for (var i = 0; ok && i < words.length; i++) ok = e[1].indexOf(words[i]) >= 0;
      if (ok) found.push(p);
    });
    return found;
  }
  function render() {
    if (!list) return;
    var mine = ++drawing;
    var found = matching();
    var view = found.slice(0, limit);
    var needed = [];
    view.forEach(function (p) {
      var k = Math.floor(p / perPage) - 1;
      if (k >= 0 && needed.indexOf(k) < 0) needed.push(k);
    });
    Promise.all(needed.map(unpackPage)).then(function () {
      // A later keystroke or click has drawn the list since.
      if (mine !== drawing) return;
      var cases = view.map(function (p) { return byPosition[p]; }).filter(Boolean);
      var n = cases.length;
      var same = list.children.length === n && cases.every(function (c, i) { return list.children[i] === c; });
      if (!same) {
        var holder = doc.createDocumentFragment();
        cases.forEach(function (c) { holder.appendChild(c); });
        list.replaceChildren(holder);
      }
      if (shown) shown.textContent = n + ' of ' + total + ' cases shown';
      if (!more) return;
      if (!unpackable && n < view.length) {
        more.hidden = false;
        more.disabled = true;
        more.textContent = 'This browser cannot unpack the other ' + (found.length - n) + ' cases';
      } else {
        more.hidden = found.length <= limit;
        more.textContent = 'Show ' + Math.min(perPage, found.length - limit) + ' more cases';
      }
    });
  }
  if (more) more.addEventListener('click', function () { limit += perPage; render(); });
  all('[data-filter]').forEach(function (tile) {
    tile.addEventListener('click', function () {
      var f = tile.getAttribute('data-filter');
      filter = filter === f ? 'all' : f;
      all('[data-filter]').forEach(function (t) { t.setAttribute('aria-pressed', String(t.getAttribute('data-filter') === filter)); });
      limit = perPage;
      render();
    });
  });
  if (search) search.addEventListener('input', function () { limit = perPage; render(); });
  render();

${COMPARE_SCRIPT}  all('.compare').forEach(initCompare);

  // Step arguments, as planned and as run, from the embedded JSON.
  var dataEl = doc.getElementById('wbplay-args');
  var args = null;
  function initArgs(root) { all('.args-toggle', root).forEach(function (b) {
    b.addEventListener('click', function () {
      var pre = b.closest('.step').querySelector('pre.args');
      if (!pre) return;
      if (!pre.textContent) {
        if (args === null) args = dataEl ? JSON.parse(dataEl.textContent || '{}') : {};
        var entry = args[b.getAttribute('data-key')] || {};
        var text = 'as planned:\n' + JSON.stringify(entry.args, null, 2);
        if (entry.resolvedArgs !== undefined) text += '\n\nas run:\n' + JSON.stringify(entry.resolvedArgs, null, 2);
        pre.textContent = text;
      }
      pre.hidden = !pre.hidden;
      b.setAttribute('aria-expanded', String(!pre.hidden));
    });
  }); }
  initArgs(doc);
})();
`;

/**
 * Golden review, only in a report served by `wbplay show-report`: an accept button posts the
 * checks it names to the server, with the server's token from the page, and shows the outcome.
 */
export const REVIEW_SCRIPT = `(() => {
  const token = document.querySelector('meta[name="wbplay-review"]').content;
  const mark = (key) => {
    document.querySelectorAll('button.accept').forEach((b) => {
      const keys = b.dataset.checks.split(' ');
      if (keys.includes(key)) b.dataset.done = String(Number(b.dataset.done || 0) + 1);
      if (Number(b.dataset.done || 0) >= keys.length) {
        b.disabled = true;
        b.textContent = keys.length > 1 ? 'Accepted' : 'Accepted as golden';
        b.classList.add('accepted');
      }
    });
  };
  // One listener for the whole page: buttons of cases added later (pages) work too.
  document.addEventListener('click', async (event) => {
    const b = event.target instanceof Element ? event.target.closest('button.accept') : null;
    if (!b || b.disabled) return;
    {
      b.disabled = true;
      const res = await fetch('/api/accept', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wbplay-review': token },
        body: JSON.stringify({ checks: b.dataset.checks.split(' ') }),
      });
      if (!res.ok) {
        b.disabled = false;
        b.textContent = 'Not accepted: ' + (await res.text());
        return;
      }
      for (const key of (await res.json()).accepted) mark(key);
    }
  });
})();
`;
