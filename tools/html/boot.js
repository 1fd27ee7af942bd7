// retail QA page bootstrap (classic script, runs last): the inlined three.js modules become
// blob: URLs named by an import map, then the page's own module starts. Nothing is fetched
// from the network.
(function () {
  'use strict';
  const imports = {};
  for (const el of document.querySelectorAll('script[data-specifier]')) {
    const blob = new Blob([el.textContent], { type: 'text/javascript' });
    imports[el.dataset.specifier] = URL.createObjectURL(blob);
  }
  const status = document.getElementById('status');
  if (!imports.three) {
    status.textContent = 'This page was written without three.js.';
    status.className = 'error';
    return;
  }
  const map = document.createElement('script');
  map.type = 'importmap';
  map.textContent = JSON.stringify({ imports });
  document.head.appendChild(map);
  const app = document.createElement('script');
  app.type = 'module';
  app.textContent = document.getElementById('retail-app').textContent;
  document.body.appendChild(app);
})();
