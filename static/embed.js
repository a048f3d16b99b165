// Resilience Lab embeds: include this script once on a chapter page, in its <head> (it runs
// before the frames are drawn), and every Resilience Lab iframe on it keeps its height.
// - Before a frame has loaded, its space is reserved from its snippet: the style's height is the
//   figure's at 720 px wide, data-lab-heights="360:1290,412:1180" its heights at a phone's
//   widths. A frame of another width gets the height between the two nearest widths on its side
//   of 640 px, where the figure puts its controls under the chart instead of beside it.
// - Each lab posts {type: "resilience-lab:height", height} whenever its height changes; a message
//   is used only when it comes from one of this page's iframes (its window is that frame's), and
//   only its height, a finite number, is read. The frame is resized only when it differs.
// - A lab frame (one with data-lab-heights, or whose src is the page beside this script) whose
//   snippet sets no theme= gets the chapter's colour scheme, theme=dark or theme=light: the
//   data-theme of the page's <html>, else its <meta name="color-scheme"> when that names one
//   scheme, else its computed background when that is opaque. Otherwise (a page that says
//   nothing) the figure follows the reader's system. It is read once, as each frame is added.
(function () {
  'use strict';
  if (window.resilienceLabEmbeds) return;
  window.resilienceLabEmbeds = true;
  var NARROW_BELOW = 640;
  var WIDE_WIDTH = 720;
  var reported = [];
  var script = document.currentScript && document.currentScript.src;
  var labBase = script ? script.slice(0, script.lastIndexOf('/') + 1) : null;

  // The snippet's (width, height) pairs: the style's height at 720 px, then data-lab-heights.
  function heightsOf(frame) {
    var list = [];
    var style = frame.style.height;
    if (/^\d+(\.\d+)?px$/.test(style)) list.push([WIDE_WIDTH, parseFloat(style)]);
    (frame.getAttribute('data-lab-heights') || '').split(',').forEach(function (pair) {
      var wh = pair.split(':').map(Number);
      if (wh.length === 2 && isFinite(wh[0]) && isFinite(wh[1]) && wh[0] > 0 && wh[1] > 0) list.push(wh);
    });
    return list;
  }

  // The height for `width` from pairs on the same side of the layout's break, interpolated.
  function heightFor(list, width) {
    var narrow = width < NARROW_BELOW;
    var side = list.filter(function (wh) { return (wh[0] < NARROW_BELOW) === narrow; })
      .sort(function (a, b) { return a[0] - b[0]; });
    if (!side.length) return null;
    if (width <= side[0][0]) return side[0][1];
    for (var i = 1; i < side.length; i++) {
      var a = side[i - 1], b = side[i];
      if (width <= b[0]) return a[1] + (b[1] - a[1]) * (width - a[0]) / (b[0] - a[0]);
    }
    return side[side.length - 1][1];
  }

  function setHeight(frame, height) {
    var px = Math.min(Math.ceil(height), 20000) + 'px';
    if (frame.style.height !== px) frame.style.height = px;
  }

  // The chapter's scheme: 'dark', 'light', or null when it does not say and paints no background.
  function chapterTheme() {
    var html = document.documentElement;
    var set = html.getAttribute('data-theme');
    if (set === 'dark' || set === 'light') return set;
    var meta = document.querySelector('meta[name="color-scheme"]');
    var schemes = ((meta && meta.getAttribute('content')) || '').split(/\s+/).filter(function (w) {
      return w === 'dark' || w === 'light';
    });
    if (schemes.length === 1) return schemes[0];
    var els = [document.body, html];
    for (var i = 0; i < els.length; i++) {
      var rgba = els[i] ? getComputedStyle(els[i]).backgroundColor.match(/[\d.]+/g) : null;
      if (rgba && rgba.length >= 3 && (rgba.length < 4 || Number(rgba[3]) > 0.5)) {
        var luma = 0.2126 * rgba[0] + 0.7152 * rgba[1] + 0.0722 * rgba[2];
        return luma < 128 ? 'dark' : 'light';
      }
    }
    return null;
  }

  // Whether the query names `key` as the lab reads it: a link escaped twice has `amp;` before it.
  function names(query, key) {
    return new RegExp('(^|&)(amp;)*' + key + '(=|&|$)').test(query);
  }

  // Adds the chapter's theme to a lab frame's src, unless the snippet set one.
  function passTheme(frame) {
    var src = frame.getAttribute('src') || '';
    var hash = src.indexOf('#') < 0 ? src.length : src.indexOf('#');
    var query = src.slice(0, hash).split('?')[1] || '';
    var page = frame.src.split(/[?#]/)[0];
    var lab = frame.hasAttribute('data-lab-heights') || page === labBase || page === labBase + 'index.html';
    if (!lab || !names(query, 'sim') || names(query, 'theme')) return;
    var theme = chapterTheme();
    if (theme) frame.setAttribute('src', src.slice(0, hash) + (/&$/.test(query) ? '' : '&') + 'theme=' + theme + src.slice(hash));
  }

  function reserve(frame) {
    passTheme(frame);
    if (!frame.hasAttribute('data-lab-heights') || reported.indexOf(frame) >= 0) return;
    var width = frame.getBoundingClientRect().width;
    var height = width > 0 ? heightFor(heightsOf(frame), width) : null;
    if (height) setHeight(frame, height);
  }

  function reserveAll() {
    var frames = document.getElementsByTagName('iframe');
    for (var i = 0; i < frames.length; i++) reserve(frames[i]);
  }

  // Frames parsed after this script: reserved as they are added, before the page is drawn.
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      r.addedNodes.forEach(function (node) {
        if (node.nodeName === 'IFRAME') reserve(node);
        else if (node.getElementsByTagName) Array.prototype.forEach.call(node.getElementsByTagName('iframe'), reserve);
      });
    });
  }).observe(document.documentElement, { childList: true, subtree: true });
  reserveAll();
  document.addEventListener('DOMContentLoaded', reserveAll);
  window.addEventListener('resize', reserveAll);

  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || data.type !== 'resilience-lab:height') return;
    var height = Number(data.height);
    if (!isFinite(height) || height <= 0) return;
    var frames = document.getElementsByTagName('iframe');
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source) {
        if (reported.indexOf(frames[i]) < 0) reported.push(frames[i]);
        setHeight(frames[i], height);
        return;
      }
    }
  });
})();
