// Keeps a run's page current without reloading it: when the server says the
// journal grew, the page is fetched again and its tables are swapped in.
// The page is the server's own (its text escaped as report.html escapes it).
(() => {
  const base = location.pathname.replace(/\/$/, '');
  const parts = ['header .summary', '#standings', '#crosstable', '#los', '#pairs'];
  const events = new EventSource(base + '/events');
  events.onmessage = async () => {
    const answer = await fetch(base, { credentials: 'same-origin' });
    if (!answer.ok) return;
    const next = new DOMParser().parseFromString(await answer.text(), 'text/html');
    for (const part of parts) {
      const now = document.querySelector(part);
      const then = next.querySelector(part);
      if (now && then) now.replaceWith(document.importNode(then, true));
    }
    document.body.dataset.updated = String(Number(document.body.dataset.updated || 0) + 1);
  };
})();
