// The play page of `arena serve` (`/play/ID`): a person's game against a bot, drawn by the report's viewer
// (`window.arenaViewer`, the one board renderer), played by clicking its cells. Plain JavaScript, no build step.
// The state comes from the server as JSON (`/play/ID/state`); each action is a POST whose answer is the state
// after the bot's reply. Everything a bot wrote reaches the page through textContent only.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const game = $("play-panel").dataset.game;
  let state = { version: -1, stage: "thinking", bot: "the bot" };
  let sending = false;

  function show(next) {
    state = next;
    if (next.data) window.arenaViewer.show(next.data);
    const data = next.data && next.data.games[0];
    if (data) {
      // The colours may have swapped since the page was made.
      document.querySelector("header .summary").textContent = data.white + " (White) against " + data.black + " (Black)";
      if (next.stage !== "over") $("viewer-players").textContent = data.white + " (White) against " + data.black + " (Black): in play";
    }
    let text;
    if (next.stage === "over") {
      text = "Game over. " + next.result;
    } else if (next.stage === "thinking") {
      text = next.bot + " is thinking…";
    } else if (next.asked === "pie") {
      text = "The pie decision is yours: swap to take White's first stone and play White, or keep the colours.";
    } else if (next.asked === "block") {
      text = "Place a block: click a free cell.";
    } else {
      text = "Your move, you are " + next.you + ": click a free cell.";
    }
    $("play-status").textContent = text;
    document.body.dataset.stage = next.stage;
    document.body.dataset.version = next.version;
    const yours = next.stage === "your_move";
    $("pie-swap").hidden = $("pie-keep").hidden = !(yours && next.asked === "pie");
    $("undo").disabled = !(yours && next.can_undo);
    $("resign").disabled = !yours;
  }

  async function send(what, body) {
    if (sending || state.stage !== "your_move") return;
    sending = true;
    $("play-error").textContent = "";
    document.body.dataset.stage = "thinking";
    $("play-status").textContent = state.bot + " is thinking…";
    try {
      const response = await fetch("/play/" + game + "/" + what, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body || {}),
      });
      if (response.ok) {
        show(await response.json());
      } else {
        $("play-error").textContent = await response.text();
        show(state);
      }
    } catch (error) {
      $("play-error").textContent = "The server did not answer (" + error + "): reload the page to go on.";
    }
    sending = false;
  }

  /** Shows the game's state, and follows it while the bot thinks (a page loaded mid-move). */
  async function follow() {
    for (;;) {
      const after = state.version >= 0 ? "?after=" + state.version : "";
      const response = await fetch("/play/" + game + "/state" + after);
      if (!response.ok) {
        $("play-error").textContent = await response.text();
        return;
      }
      const next = await response.json();
      if (next.version !== state.version) show(next);
      if (next.stage !== "thinking") return;
    }
  }

  $("board").addEventListener("click", (event) => {
    const cell = event.target.closest("g[data-cell]");
    if (cell && state.asked !== "pie") send("move", { cell: cell.dataset.cell });
  });
  $("pie-swap").addEventListener("click", () => send("move", { swap: true }));
  $("pie-keep").addEventListener("click", () => send("move", { swap: false }));
  $("undo").addEventListener("click", () => send("undo"));
  $("resign").addEventListener("click", () => send("resign"));
  follow();
})();
