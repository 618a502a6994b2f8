// Keeps a run's page current without reloading it: when the server says the
// journal grew, the run's tables (the page without its games) are fetched and
// swapped in. They are the server's own page, its text escaped as
// report.html escapes it.
(() => {
  const base = location.pathname.replace(/\/$/, '');
  const parts = ['header .summary', '#standings', '#crosstable', '#los', '#pairs'];
  const events = new EventSource(base + '/events');
  // The journal's length the tables show (journalShown: the page's, set by the
  // server before this script).
  let shown = journalShown;
  // Each event is the journal's length: the tables must show at least that much.
  // The stream sends it as it (re)connects, so a page whose connection was cut
  // catches up with what it missed.
  events.onmessage = async (event) => {
    const length = Number(event.data);
    if (!(length > shown)) return;
    const answer = await fetch(base + '/tables?length=' + encodeURIComponent(event.data), {
      credentials: 'same-origin',
    });
    if (!answer.ok) return;
    shown = Math.max(shown, length);
    const next = new DOMParser().parseFromString(await answer.text(), 'text/html');
    for (const part of parts) {
      const now = document.querySelector(part);
      const then = next.querySelector(part);
      if (now && then) now.replaceWith(document.importNode(then, true));
    }
    document.body.dataset.updated = String(Number(document.body.dataset.updated || 0) + 1);
  };
})();
