// The game list and the replay viewer of the pahtum-arena report. Plain JavaScript, no build step.
// Everything a bot wrote reaches the page through textContent only, never as markup.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const POINTS = [0, 0, 0, 3, 10, 25, 56, 119];
  const SIZE = 7, CELL = 48, MARGIN = 22;
  const SVG = "http://www.w3.org/2000/svg";
  const REASONS = { normal: "normal", timeout: "timeout", disconnect: "crash", illegal_move: "illegal move", protocol_error: "protocol error", stall: "stall", memory: "memory", resign: "resignation" };
  const RESULTS = { white: "White won", black: "Black won", draw: "draw" };
  // The pie decision as the protocol writes it.
  const PIE = { true: "swap", false: "keep" };
  // The marks of the analysis's grades, as chess writes them.
  const MARKS = { "?!": "inaccuracy", "?": "mistake", "??": "blunder" };
  const GRAPH = { width: 362, height: 130, left: 30, right: 8, top: 8, bottom: 18 };
  const $ = (id) => document.getElementById(id);

  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  // ---- The game list -------------------------------------------------------------------------
  const games = data.games;
  const byId = new Map(games.map((game) => [game.id, game]));
  const list = { body: $("games-body"), limit: 200 };

  function option(select, value, label) {
    const node = element("option", label);
    node.value = value;
    select.appendChild(node);
  }

  /** The bot that lost the game, by the colour it had at the end (after any swap); null for a draw. */
  function loser(game) {
    return game.result === "white" ? game.black : game.result === "black" ? game.white : null;
  }

  /** The winner as the list shows it: the bot and its colour at the end, or "draw". */
  function winner(game) {
    return game.result === "white" ? game.white + " (White)" : game.result === "black" ? game.black + " (Black)" : "draw";
  }

  function matches(game) {
    const bot = $("filter-bot").value, against = $("filter-against").value, lost = $("filter-lost").value;
    const result = $("filter-result").value, reason = $("filter-reason").value;
    const sides = [game.white, game.black];
    if (bot && !sides.includes(bot)) return false;
    if (against && !(sides.includes(against) && (!bot || sides.includes(bot) && bot !== against))) return false;
    if (lost && loser(game) !== lost) return false;
    if (result && game.result !== result) return false;
    return !reason || game.reason === reason;
  }

  function renderList() {
    const shown = games.filter(matches);
    list.body.replaceChildren();
    for (const game of shown.slice(0, list.limit)) {
      const row = document.createElement("tr");
      row.dataset.id = game.id;
      const end = (game.adjudicated ? "adjudicated" : REASONS[game.reason]) + (game.forfeited.length ? " (" + game.forfeited.join(", ") + ")" : "");
      const pie = game.swap === undefined ? "—" : PIE[game.swap];
      const cells = [[game.id], [game.white, "name"], [game.black, "name"], [pie, "pie"], [game.score[0] + "–" + game.score[1]],
        [winner(game), "name winner"], [end, game.forfeited.length ? "forfeit" : undefined]];
      for (const [text, className] of cells) row.appendChild(element("td", text, className));
      if (data.replays[game.id]) {
        row.addEventListener("click", () => { location.hash = "game=" + encodeURIComponent(game.id); });
      } else {
        row.className = "no-replay";
        row.title = "replay not embedded";
      }
      list.body.appendChild(row);
    }
    // Of a long run only a sample is listed: say so beside the count.
    const listed = games.length < data.played ? " listed (of " + data.played + " played)" : "";
    $("games-count").textContent = shown.length + " of " + games.length + " games" + listed;
    $("games-more").hidden = shown.length <= list.limit;
  }

  if (list.body) {
    const bots = [...new Set(games.flatMap((game) => [game.white, game.black]))].sort();
    for (const bot of bots) {
      option($("filter-bot"), bot, bot);
      option($("filter-against"), bot, bot);
      option($("filter-lost"), bot, bot);
    }
    for (const reason of [...new Set(games.map((game) => game.reason))].sort()) option($("filter-reason"), reason, REASONS[reason]);
    for (const id of ["filter-bot", "filter-against", "filter-lost", "filter-result", "filter-reason"]) {
      $(id).addEventListener("change", () => { list.limit = 200; renderList(); });
    }
    $("games-more").addEventListener("click", () => { list.limit += 500; renderList(); });
    for (const link of document.querySelectorAll(".crosstable a[data-bot]")) {
      link.addEventListener("click", () => {
        $("filter-bot").value = link.dataset.bot;
        $("filter-against").value = link.dataset.against;
        list.limit = 200;
        renderList();
      });
    }
    renderList();
  }

  // ---- The replay viewer ---------------------------------------------------------------------
  const view = { game: null, plies: [], at: 0, timer: null };

  function cellAt(text, index) {
    return { column: text.charCodeAt(index) - 97, row: text.charCodeAt(index + 1) - 49 };
  }

  /**
   * The plies of a game, numbered as everything the arena shows numbers them (RECORD.md, "Move numbers"): ply N
   * is the N-th entry of the protocol's moves list, the players' blocks ("#d4"), the stones ("d4") and the pie
   * decision after the first stone ("swap" or "keep"), each with its notation there.
   */
  function pliesOf(game, replay) {
    const plies = [];
    const firstStone = replay.kinds.indexOf("s");
    for (let i = 0; i < replay.kinds.length; i++) {
      const cell = replay.cells.substr(2 * i, 2), block = replay.kinds[i] === "b";
      plies.push({
        kind: block ? "block" : "stone",
        notation: block ? "#" + cell : cell,
        cell,
        color: replay.colors[i] === "w" ? "white" : "black",
        bot: replay.seats[i] === "1" ? game.first : game.second,
        seat: replay.seats[i],
        ms: replay.ms[i],
        info: replay.info[i],
      });
      if (i === firstStone && replay.swap !== null) {
        plies.push({ kind: "pie", notation: PIE[replay.swap], swap: replay.swap, bot: game.second, seat: "2", ms: replay.swap_ms, info: replay.swap_info });
      }
    }
    // The plies given before the bots played (`arena game --moves`, `--from`) are nobody's choice.
    for (const ply of plies.slice(0, replay.given || 0)) {
      Object.assign(ply, { given: true, ms: null, info: undefined });
    }
    // The analysis (`arena analyze`), one entry per ply in the same numbering, and each side's losing move.
    const analysis = replay.analysis;
    if (analysis) {
      plies.forEach((ply, index) => {
        ply.analysis = analysis.plies[index];
        ply.losing = analysis.losing.white === index + 1 || analysis.losing.black === index + 1;
      });
    }
    return plies;
  }

  /** The board after the first `count` plies: 0 free, 1 white, 2 black, 3 block. */
  function boardAfter(count) {
    return boardOf(data.replays[view.game.id].blocks, view.plies.slice(0, count));
  }

  /** The board of the initial `blocks` (one string of cells) after `plies` (as `pliesOf` makes them). */
  function boardOf(blocks, plies) {
    const board = Array.from({ length: SIZE }, () => new Array(SIZE).fill(0));
    for (let i = 0; i < blocks.length; i += 2) {
      const { column, row } = cellAt(blocks, i);
      board[row][column] = 3;
    }
    for (const ply of plies) {
      if (ply.kind === "pie") continue;
      const { column, row } = cellAt(ply.cell, 0);
      board[row][column] = ply.kind === "block" ? 3 : ply.color === "white" ? 1 : 2;
    }
    return board;
  }

  /** Every maximal horizontal or vertical run of three or more stones of one colour, with its points. */
  function runsOf(board) {
    const runs = [];
    const scan = (cellOf) => {
      for (let line = 0; line < SIZE; line++) {
        let start = 0;
        for (let i = 1; i <= SIZE; i++) {
          const [c0, r0] = cellOf(line, start);
          const stone = board[r0][c0];
          const [c, r] = i < SIZE ? cellOf(line, i) : [0, 0];
          if (i < SIZE && board[r][c] === stone) continue;
          const length = i - start;
          if ((stone === 1 || stone === 2) && length >= 3) {
            const cells = [];
            for (let k = start; k < i; k++) cells.push(cellOf(line, k));
            runs.push({ color: stone === 1 ? "white" : "black", cells, points: POINTS[length] });
          }
          start = i;
        }
      }
    };
    scan((line, i) => [i, line]);
    scan((line, i) => [line, i]);
    return runs;
  }

  function svg(tag, attributes, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function drawBoard(board, runs, last, best, root = $("board")) {
    root.replaceChildren();
    const x = (column) => MARGIN + column * CELL, y = (row) => MARGIN + (SIZE - 1 - row) * CELL;
    root.appendChild(svg("rect", { x: MARGIN, y: MARGIN, width: SIZE * CELL, height: SIZE * CELL, fill: "#e8c98f" }));
    for (let i = 0; i < SIZE; i++) {
      root.appendChild(svg("text", { x: x(i) + CELL / 2, y: MARGIN + SIZE * CELL + 15, "text-anchor": "middle", "font-size": 13 }, String.fromCharCode(97 + i)));
      root.appendChild(svg("text", { x: 8, y: y(i) + CELL / 2 + 5, "text-anchor": "middle", "font-size": 13 }, String(i + 1)));
    }
    for (let row = 0; row < SIZE; row++) {
      for (let column = 0; column < SIZE; column++) {
        const cell = String.fromCharCode(97 + column) + (row + 1);
        const group = svg("g", { "data-cell": cell });
        group.appendChild(svg("rect", { x: x(column), y: y(row), width: CELL, height: CELL, fill: "none", stroke: "#8a6a3a" }));
        const stone = board[row][column], cx = x(column) + CELL / 2, cy = y(row) + CELL / 2;
        if (stone === 3) {
          group.appendChild(svg("rect", { x: x(column) + 3, y: y(row) + 3, width: CELL - 6, height: CELL - 6, fill: "#5a4a3a", class: "block" }));
        } else if (stone) {
          group.appendChild(svg("circle", { cx, cy, r: CELL / 2 - 5, fill: stone === 1 ? "#f8f8f4" : "#23262d", stroke: "#222", class: stone === 1 ? "white" : "black" }));
        }
        if (last === cell) group.appendChild(svg("circle", { cx, cy, r: 5, fill: "#d33", class: "last" }));
        // A ring on each best move for the ply to come (dashed for a block).
        const ring = best.find((move) => move.replace("#", "") === cell);
        if (ring) {
          group.appendChild(svg("circle", { cx, cy, r: CELL / 2 - 2, fill: "none", stroke: "#1e9e4a", "stroke-width": 3,
            "stroke-dasharray": ring.startsWith("#") ? "5 3" : "none", class: "best", "data-best": ring }));
        }
        root.appendChild(group);
      }
    }
    for (const run of runs) {
      const [c0, r0] = run.cells[0], [c1, r1] = run.cells[run.cells.length - 1];
      const left = Math.min(x(c0), x(c1)) + 4, top = Math.min(y(r0), y(r1)) + 4;
      const width = Math.abs(x(c1) - x(c0)) + CELL - 8, height = Math.abs(y(r1) - y(r0)) + CELL - 8;
      const color = run.color === "white" ? "#1f6fd1" : "#d1451f";
      const cells = run.cells.map(([column, row]) => String.fromCharCode(97 + column) + (row + 1)).join("");
      root.appendChild(svg("rect", { x: left, y: top, width, height, rx: 10, fill: "none", stroke: color, "stroke-width": 4, class: "run", "data-cells": cells }));
      // The points at the run's start: a row's on its left edge, a column's on its top edge, so that crossing
      // runs keep their labels apart.
      const across = r0 === r1;
      const labelX = across ? left : left + width / 2, labelY = across ? top + height / 2 : top;
      const label = svg("g", { class: "run-points" });
      label.appendChild(svg("circle", { cx: labelX, cy: labelY, r: 12, fill: color }));
      label.appendChild(svg("text", { x: labelX, y: labelY + 5, "text-anchor": "middle", "font-size": 13, fill: "#fff", "font-weight": "bold" }, String(run.points)));
      root.appendChild(label);
    }
  }

  /** What a ply is, after its notation: a block or a stone's colour and the bot, or what the pie decision did. */
  function detail(ply) {
    if (ply.given) return " " + (ply.kind === "pie" ? "pie decision" : ply.kind === "block" ? "block" : ply.color) + " (given)";
    if (ply.kind === "pie") return " (" + ply.bot + (ply.swap ? " takes White)" : " stays Black)");
    return " " + (ply.kind === "block" ? "block" : ply.color) + " (" + ply.bot + ")";
  }

  /** A ply for the move list: its notation (the protocol's) apart, then what it is, then its analysis's mark. */
  function plyItem(ply) {
    const item = element("li", undefined, ply.kind);
    item.appendChild(element("span", ply.notation, "notation"));
    item.appendChild(document.createTextNode(detail(ply)));
    if (ply.analysis && ply.analysis.g) {
      const mark = element("span", ply.analysis.g, "mark " + MARKS[ply.analysis.g]);
      mark.title = MARKS[ply.analysis.g];
      item.appendChild(mark);
    }
    if (ply.losing) {
      item.classList.add("losing");
      item.appendChild(element("span", "losing move", "losing-label"));
    }
    return item;
  }

  /** A value of the analysis, for the mover: a proven margin and its outcome, or an estimate. */
  function valueText(value) {
    if (value.m === undefined) return value.x.toFixed(2) + " expected (estimate)";
    return (value.m > 0 ? "+" : "") + value.m + " (exact: " + (value.m > 0 ? "win" : value.m < 0 ? "loss" : "draw") + ")";
  }

  /** A value on the graph's scale: the expected result, 1, ½ or 0 for an exact value. */
  function expected(value) {
    return value.m === undefined ? value.x : value.m > 0 ? 1 : value.m < 0 ? 0 : 0.5;
  }

  /** The value after each ply for the bot that ended as White (the seat that chose White, or kept it). */
  function graphPoints(replay) {
    const whiteSeat = replay.swap ? "2" : "1";
    return view.plies.filter((ply) => ply.analysis).map((ply, index) => {
      const after = ply.analysis.a, ours = ply.seat === whiteSeat;
      const value = after.m === undefined ? { x: ours ? after.x : 1 - after.x } : { m: ours ? after.m : -after.m };
      return { at: index + 1, value, y: expected(value) };
    });
  }

  const graphX = (at) => GRAPH.left + (GRAPH.width - GRAPH.left - GRAPH.right) * (view.plies.length > 1 ? (at - 1) / (view.plies.length - 1) : 0.5);
  const graphY = (y) => GRAPH.top + (GRAPH.height - GRAPH.top - GRAPH.bottom) * (1 - y);

  function drawGraph(replay) {
    const root = $("graph");
    root.replaceChildren();
    $("evaluation").hidden = !replay.analysis;
    if (!replay.analysis) return;
    for (const [y, label] of [[1, "1"], [0.5, "½"], [0, "0"]]) {
      root.appendChild(svg("line", { x1: GRAPH.left, x2: GRAPH.width - GRAPH.right, y1: graphY(y), y2: graphY(y), stroke: "#ccd", "stroke-dasharray": y === 0.5 ? "4 3" : "none" }));
      root.appendChild(svg("text", { x: GRAPH.left - 6, y: graphY(y) + 4, "text-anchor": "end", "font-size": 11 }, label));
    }
    root.appendChild(svg("text", { x: GRAPH.left, y: GRAPH.height - 4, "font-size": 11 }, "ply 1"));
    root.appendChild(svg("text", { x: GRAPH.width - GRAPH.right, y: GRAPH.height - 4, "font-size": 11, "text-anchor": "end" }, "ply " + view.plies.length));
    root.appendChild(svg("line", { id: "graph-current", y1: GRAPH.top, y2: GRAPH.height - GRAPH.bottom, stroke: "#2f5fb3", "stroke-width": 2 }));
    const points = graphPoints(replay);
    root.appendChild(svg("polyline", { points: points.map((p) => graphX(p.at) + "," + graphY(p.y)).join(" "), fill: "none", stroke: "#555", "stroke-width": 1.5 }));
    for (const point of points) {
      const exact = point.value.m !== undefined;
      const dot = svg("circle", { cx: graphX(point.at), cy: graphY(point.y), r: 3.5, "stroke-width": 1.5, stroke: "#333",
        fill: exact ? "#333" : "#fff", class: "point " + (exact ? "exact" : "estimate"), "data-ply": point.at });
      dot.appendChild(svg("title", {}, "ply " + point.at + ": " + valueText(point.value) + " for White"));
      dot.addEventListener("click", () => { stop(); go(point.at); });
      root.appendChild(dot);
    }
  }

  function showInfo(ply, at) {
    const box = $("move-info");
    box.replaceChildren();
    if (!ply) return;
    const list = element("dl");
    const add = (term, value) => {
      if (value === undefined || value === null) return;
      list.appendChild(element("dt", term));
      list.appendChild(element("dd", value));
    };
    add("ply " + at, ply.notation + detail(ply));
    const analysis = ply.analysis;
    if (analysis) {
      add("value before", valueText(analysis.b));
      add("value after", valueText(analysis.a));
      add("loss", analysis.l + (analysis.b.m !== undefined && analysis.a.m !== undefined ? " points" : " expected result"));
      add("best", analysis.best || null);
      add("mark", analysis.g ? analysis.g + " " + MARKS[analysis.g] : null);
      add("losing move", ply.losing ? "yes: after it, its outcome was worse" : null);
    }
    add("time", ply.ms === null || ply.ms === undefined ? null : ply.ms + " ms");
    const info = ply.info || {};
    add("eval", info.e);
    add("depth", info.d);
    add("nodes", info.n);
    add("pv", info.p);
    add("comment", info.c === undefined ? null : data.comments[info.c]);
    box.appendChild(list);
  }

  function go(at) {
    view.at = Math.max(0, Math.min(view.plies.length, at));
    const board = boardAfter(view.at);
    const runs = runsOf(board);
    const end = view.at === view.plies.length;
    const ply = view.plies[view.at - 1];
    // The scoring runs are outlined at every ply, not only at the end: a run is scored as it stands.
    const next = view.plies[view.at];
    const best = next && next.analysis && next.analysis.best ? next.analysis.best.split(" ") : [];
    drawBoard(board, runs, ply && ply.kind !== "pie" ? ply.cell : null, best);
    const marker = $("graph-current");
    if (marker) {
      marker.setAttribute("x1", graphX(Math.max(1, view.at)));
      marker.setAttribute("x2", graphX(Math.max(1, view.at)));
      marker.setAttribute("visibility", view.at > 0 ? "visible" : "hidden");
      for (const point of $("graph").querySelectorAll(".point")) point.setAttribute("r", Number(point.dataset.ply) === view.at ? 6 : 3.5);
    }
    const white = runs.filter((run) => run.color === "white").reduce((sum, run) => sum + run.points, 0);
    const black = runs.filter((run) => run.color === "black").reduce((sum, run) => sum + run.points, 0);
    const score = $("score");
    score.textContent = "White " + white + " – " + black + " Black" + (end ? " (final)" : "");
    score.dataset.white = white;
    score.dataset.black = black;
    $("position").textContent = "ply " + view.at + " of " + view.plies.length;
    // The address names the ply shown, so that a link opens the game there (`#game=ID&ply=N`).
    history.replaceState(null, "", "#game=" + encodeURIComponent(view.game.id) + "&ply=" + view.at);
    $("slider").value = view.at;
    showInfo(ply, view.at);
    if (best.length) {
      const list = $("move-info").querySelector("dl") || $("move-info").appendChild(element("dl"));
      list.appendChild(element("dt", "best next"));
      list.appendChild(element("dd", best.join(" ") + " (ply " + (view.at + 1) + ")"));
    }
    for (const item of $("moves").children) item.classList.toggle("current", Number(item.dataset.at) === view.at);
    // Keep the current move in sight in the list, scrolling the list alone (never the page).
    const list = $("moves"), current = list.querySelector(".current");
    if (current && (current.offsetTop < list.scrollTop || current.offsetTop + current.offsetHeight > list.scrollTop + list.clientHeight)) {
      list.scrollTop = current.offsetTop - list.clientHeight / 2;
    }
  }

  function showVerdict(replay) {
    const box = $("verdict");
    box.replaceChildren();
    box.hidden = replay.forfeits.length === 0;
    for (const forfeit of replay.forfeits) {
      box.appendChild(element("p", "Forfeit: " + forfeit.bot + " (" + forfeit.seat + " seat, " + forfeit.color + "): " + forfeit.verdict + ".", "verdict-line"));
      box.appendChild(element("p", forfeit.detail, "verdict-detail"));
      if (forfeit.line !== null && forfeit.line !== undefined) {
        box.appendChild(element("p", "The offending line:"));
        box.appendChild(element("pre", forfeit.line, "offending-line"));
      }
      if (forfeit.stderr_tail.length) {
        box.appendChild(element("p", "The tail of its stderr:"));
        box.appendChild(element("pre", forfeit.stderr_tail.join("\n"), "stderr-tail"));
      }
    }
  }

  function stop() {
    clearInterval(view.timer);
    view.timer = null;
    $("play").textContent = "▶ play";
  }

  function toggle() {
    if (view.timer) return stop();
    if (view.at === view.plies.length) go(0);
    $("play").textContent = "⏸ pause";
    view.timer = setInterval(() => (view.at < view.plies.length ? go(view.at + 1) : stop()), 600);
  }

  function open(id, at) {
    const game = byId.get(id), replay = data.replays[id];
    if (!game || !replay) return;
    stop();
    view.game = game;
    view.plies = pliesOf(game, replay);
    $("viewer").hidden = false;
    $("viewer-title").textContent = "Game " + game.id;
    $("viewer-players").textContent = game.white + " (White) against " + game.black + " (Black): " + RESULTS[game.result] +
      ", " + game.score[0] + "–" + game.score[1] + (game.adjudicated ? ", " + game.adjudicated : ", " + REASONS[game.reason] + " end");
    const moves = $("moves");
    moves.replaceChildren();
    view.plies.forEach((ply, index) => {
      const item = plyItem(ply);
      item.dataset.at = index + 1;
      if (ply.ms !== null && ply.ms !== undefined) item.appendChild(element("span", ply.ms + " ms", "ms"));
      item.addEventListener("click", () => { stop(); go(index + 1); });
      moves.appendChild(item);
    });
    $("slider").max = view.plies.length;
    drawGraph(replay);
    showVerdict(replay);
    go(at === "end" ? view.plies.length : Number(at) || 0);
  }

  $("first").addEventListener("click", () => { stop(); go(0); });
  $("back").addEventListener("click", () => { stop(); go(view.at - 1); });
  $("forward").addEventListener("click", () => { stop(); go(view.at + 1); });
  $("last").addEventListener("click", () => { stop(); go(view.plies.length); });
  $("play").addEventListener("click", toggle);
  $("slider").addEventListener("input", () => { stop(); go(Number($("slider").value)); });
  document.addEventListener("keydown", (event) => {
    if (!view.game || event.target.tagName === "SELECT" || event.target.tagName === "INPUT") return;
    const keys = { ArrowLeft: view.at - 1, ArrowRight: view.at + 1, Home: 0, End: view.plies.length };
    if (event.key in keys) {
      stop();
      go(keys[event.key]);
      event.preventDefault();
    } else if (event.key === " ") {
      toggle();
      event.preventDefault();
    }
  });

  /** `#game=ID` (and `&ply=N`, in the one numbering of plies, or `&ply=end`) opens a replay; a page of one game opens it at once. */
  function route() {
    const params = new URLSearchParams(location.hash.slice(1));
    const id = params.get("game") || (games.length === 1 && !list.body ? games[0].id : null);
    if (id) {
      open(id, params.get("ply"));
      if (params.get("game")) $("viewer").scrollIntoView();
    }
  }
  // A page whose game grows (the play page of `arena serve`) hands the viewer the game's newest data, shown at
  // its last ply; its cells are the board's `g[data-cell]` elements.
  window.arenaViewer = {
    show(next) {
      Object.assign(data, next);
      for (const game of next.games) byId.set(game.id, game);
      open(next.games[0].id, "end");
    },
  };
  window.addEventListener("hashchange", route);
  route();
  // For the live pages of `arena serve`: the same board for the games in progress, and a game that has just
  // ended added to the list and the replays (`comments`: those its replay's `info` indexes, its own).
  window.pahtumViewer = {
    boardOf, runsOf, drawBoard,
    add(game, replay, comments) {
      const shift = (info) => { if (info && info.c !== undefined) info.c += data.comments.length; };
      Object.values(replay.info).forEach(shift);
      shift(replay.swap_info);
      data.comments.push(...comments);
      if (!byId.has(game.id)) games.push(game);
      byId.set(game.id, game);
      data.replays[game.id] = replay;
      if (list.body) renderList();
    },
  };
  // When the page became usable, in milliseconds since navigation began (read by the measurements in the README).
  document.body.dataset.readyMs = Math.round(performance.now());
  document.body.dataset.ready = "true";
})();
