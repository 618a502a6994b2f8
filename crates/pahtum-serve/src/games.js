// The games in progress on a run's page: each board advancing move by move, with both bots' clocks and each
// bot's info, from the run's stream of games (/runs/NAME/games: lines of JSON, a snapshot first). Click one to
// follow it large; when it ends, it becomes its replay in the report's viewer. The boards are the viewer's
// (window.pahtumViewer). Everything a bot wrote is put on the page as text (textContent), never as markup.
"use strict";
(() => {
  const viewer = window.pahtumViewer;
  const main = document.querySelector("main");
  if (!viewer || !main) return;
  const base = location.pathname.replace(/\/$/, "");
  const element = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = String(text);
    return node;
  };

  const section = element("section");
  section.id = "live-games";
  const title = element("h2", null, "Games in progress");
  const none = element("p", "note live-none", "No game is being played now.");
  const follow = element("div", "live-game large");
  follow.hidden = true;
  const list = element("div", "live-list");
  const body = element("div", "live-body");
  body.append(follow, list);
  section.append(title, none, body);
  main.insertBefore(section, main.firstChild);

  /** The games in progress by id, the game followed large, and the cards to redraw. */
  const state = { games: new Map(), followed: null, dirty: new Set(), frame: 0 };

  /** The plies of a live game as the viewer's board takes them. */
  function plies(game) {
    return game.plies.map((ply) => {
      const kind = ply.action.startsWith("#") ? "block" : ply.action === "swap" || ply.action === "keep" ? "pie" : "stone";
      return { kind, cell: ply.action.replace("#", ""), color: ply.color };
    });
  }

  /** Each seat's colour now: the first seat holds White unless the pie was taken. */
  function colors(game) {
    const swapped = game.plies.some((ply) => ply.action === "swap");
    return swapped ? ["black", "white"] : ["white", "black"];
  }

  const seconds = (ms) => (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";

  /** A seat's clock in words: the time left on a Fischer clock, and the time used. */
  function clockText(game, seat) {
    const last = [...game.plies].reverse().find((ply) => ply.clocks);
    const clock = last ? last.clocks[seat] : { left_ms: game.time[seat].base_ms ?? null, used_ms: 0 };
    const left = clock.left_ms === null || clock.left_ms === undefined ? "" : seconds(clock.left_ms) + " left, ";
    return left + seconds(clock.used_ms) + " used";
  }

  /** A seat's last info, as text parts; its comment apart. */
  function infoOf(game, seat) {
    const name = seat === 0 ? "first" : "second";
    const last = [...game.plies].reverse().find((ply) => ply.seat === name && ply.info);
    if (!last) return null;
    const info = last.info, parts = [];
    if (info.eval !== undefined) parts.push("eval " + (Number.isInteger(info.eval) ? info.eval : info.eval.toFixed(3)));
    if (info.depth !== undefined) parts.push("depth " + info.depth);
    if (info.nodes !== undefined) parts.push("nodes " + info.nodes);
    if (info.pv !== undefined) parts.push("pv " + info.pv.join(" "));
    return { text: "ply " + last.ply + (parts.length ? ": " + parts.join(", ") : ""), comment: info.comment };
  }

  /** Draws `game` into `card` (a card of the list, or the large one). */
  function draw(card, game) {
    card.replaceChildren();
    card.dataset.game = game.id;
    card.dataset.plies = game.plies.length;
    const board = viewer.boardOf(game.blocks.join(""), plies(game));
    const runs = viewer.runsOf(board);
    const points = (color) => runs.filter((run) => run.color === color).reduce((sum, run) => sum + run.points, 0);
    const last = game.plies[game.plies.length - 1];
    const head = element("div", "live-head");
    head.append(element("span", "live-id", game.id), element("span", "live-score", "White " + points("white") + " – " + points("black") + " Black"));
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 362 384");
    svg.setAttribute("class", "live-board");
    viewer.drawBoard(board, runs, last && !last.action.match(/^(swap|keep)$/) ? last.action.replace("#", "") : null, [], svg);
    card.append(head, svg);
    const [first, second] = colors(game);
    [[game.first, first], [game.second, second]].forEach(([name, color], seat) => {
      const row = element("div", "live-seat " + color);
      row.dataset.seat = seat === 0 ? "first" : "second";
      row.append(element("span", "live-name", name), element("span", "live-color", " (" + color + ") "), element("span", "live-clock", clockText(game, seat)));
      card.append(row);
      const info = infoOf(game, seat);
      if (info) {
        const box = element("div", "live-info");
        box.dataset.seat = row.dataset.seat;
        box.append(element("span", "live-numbers", info.text));
        if (info.comment !== undefined) box.append(element("span", "live-comment", info.comment));
        card.append(box);
      }
    });
    card.append(element("div", "live-ply", last ? "ply " + last.ply + ": " + last.action + (last.ms === null ? " (given)" : ", " + last.ms.toFixed(1) + " ms") : "not started"));
  }

  function redraw() {
    state.frame = 0;
    for (const id of state.dirty) {
      const game = state.games.get(id);
      let card = list.querySelector('[data-game="' + CSS.escape(id) + '"]');
      if (!game) {
        if (card) card.remove();
        continue;
      }
      if (!card) {
        card = element("div", "live-game");
        card.addEventListener("click", () => followGame(card.dataset.game));
        const after = [...list.children].find((other) => other.dataset.game > id);
        list.insertBefore(card, after || null);
      }
      draw(card, game);
      if (state.followed === id) draw(follow, game);
    }
    state.dirty.clear();
    none.hidden = state.games.size > 0;
    title.textContent = "Games in progress" + (state.games.size ? " (" + state.games.size + ")" : "");
    document.body.dataset.liveUpdates = String(Number(document.body.dataset.liveUpdates || 0) + 1);
  }

  function changed(id) {
    state.dirty.add(id);
    if (!state.frame) state.frame = requestAnimationFrame(redraw);
  }

  function followGame(id) {
    const game = state.games.get(id);
    if (!game) return;
    state.followed = id;
    follow.hidden = false;
    draw(follow, game);
    follow.scrollIntoView({ block: "nearest" });
  }

  /** A game ended: off the list; the one followed becomes its replay, read from the journal. */
  async function ended(end) {
    state.games.delete(end.game);
    changed(end.game);
    if (state.followed !== end.game) return;
    state.followed = null;
    const query = "?game=" + encodeURIComponent(end.game) + "&offset=" + end.offset + "&len=" + end.len;
    const answer = await fetch(base + "/replay" + query, { credentials: "same-origin" });
    follow.hidden = true;
    if (!answer.ok) return;
    const { game, replay, comments } = await answer.json();
    viewer.add(game, replay, comments);
    location.hash = "game=" + encodeURIComponent(game.id) + "&ply=end";
  }

  function apply(event) {
    if (event.type === "snapshot") {
      const known = [...state.games.keys()];
      state.games = new Map(event.games.map((game) => [game.id, game]));
      known.forEach(changed);
      event.games.forEach((game) => changed(game.id));
      if (!state.games.size) changed("");
      for (const end of event.ended) if (end.game === state.followed) ended(end);
    } else if (event.type === "start") {
      state.games.set(event.game.id, event.game);
      changed(event.game.id);
    } else if (event.type === "move") {
      const game = state.games.get(event.game);
      if (!game) return;
      game.plies.push(event.ply);
      changed(game.id);
    } else if (event.type === "end") {
      ended(event);
    }
  }

  const events = new EventSource(base + "/games");
  events.onmessage = (message) => {
    for (const line of message.data.split("\n")) apply(JSON.parse(line));
  };
})();
