// Resilience Lab embeds: include this script once on a chapter page and every Resilience Lab
// iframe on it is sized to its content. Each lab posts {type: "resilience-lab:height", height}
// whenever its height changes; a message is used only when it comes from one of this page's
// iframes (its window is that frame's), and only its height, a finite number, is read.
(function () {
  'use strict';
  if (window.resilienceLabEmbeds) return;
  window.resilienceLabEmbeds = true;
  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || data.type !== 'resilience-lab:height') return;
    var height = Number(data.height);
    if (!isFinite(height) || height <= 0) return;
    var frames = document.getElementsByTagName('iframe');
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source) {
        frames[i].style.height = Math.min(Math.ceil(height), 20000) + 'px';
        return;
      }
    }
  });
})();
