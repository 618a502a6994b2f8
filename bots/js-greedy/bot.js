#!/usr/bin/env node
// A greedy Pah Tum bot: it plays the stone that gains the most points now,
// counting what the stone scores for itself and what it takes away from the
// opponent (the points the opponent would score on that cell). It speaks the
// pahtum-arena protocol (protocol.md): one JSON message per line on stdin, one
// answer per line on stdout. Plain Node.js: copy it and improve `chooseStone`.
'use strict';
const readline = require('readline');

const NAME = 'js-greedy';
const PROTOCOL = 1; // the protocol version this bot was written for
const RUN_POINTS = [0, 0, 0, 3, 10, 25, 56, 119]; // points of a run of n stones
// All 49 cells, "a1" (bottom-left) to "g7" (top-right); index = row * 7 + column.
const CELLS = [...'1234567'].flatMap((row) => [...'abcdefg'].map((column) => column + row));

// Answers go to stdout, one line each (on Linux, writes to a pipe need no flush).
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
// Logs go to stderr, which the referee keeps; stdout is only for answers.
const log = (text) => process.stderr.write(`[${NAME}] ${text}\n`);
const randomOf = (list) => list[Math.floor(Math.random() * list.length)];

// The board from a request: an array of 49 marks, '.' free, '#' block,
// 'white' or 'black'. Every request carries the whole board.
function board(request) {
  const marks = CELLS.map(() => '.');
  for (const cell of request.blocks) marks[CELLS.indexOf(cell)] = '#';
  for (const color of ['white', 'black']) for (const cell of request[color]) marks[CELLS.indexOf(cell)] = color;
  return marks;
}

// Points of `color` on `marks`: every row and column, run by run.
function points(marks, color) {
  let total = 0;
  for (let line = 0; line < 7; line++) {
    let rowRun = 0;
    let columnRun = 0;
    for (let k = 0; k <= 7; k++) { // k = 7 closes the runs that reach the edge
      if (k < 7 && marks[line * 7 + k] === color) rowRun++; else { total += RUN_POINTS[rowRun]; rowRun = 0; }
      if (k < 7 && marks[k * 7 + line] === color) columnRun++; else { total += RUN_POINTS[columnRun]; columnRun = 0; }
    }
  }
  return total;
}

// How many points a stone of `color` on `index` would add.
const gain = (marks, index, color) => points(marks.with(index, color), color) - points(marks, color);

// The greedy choice: own gain plus the opponent's gain denied; ties at random.
function chooseStone(request) {
  const marks = board(request);
  const opponent = request.color === 'white' ? 'black' : 'white';
  let best = -1;
  let bestCells = [];
  marks.forEach((mark, index) => {
    if (mark !== '.') return;
    const value = gain(marks, index, request.color) + gain(marks, index, opponent);
    if (value > best) [best, bestCells] = [value, []];
    if (value === best) bestCells.push(CELLS[index]);
  });
  return randomOf(bestCells);
}

// Pie rule: swap when White's first stone has all four neighbours free, so
// that it can grow in every direction; keep when it is hemmed in.
function shouldSwap(request) {
  const index = CELLS.indexOf(request.white[0]);
  const [row, column] = [Math.floor(index / 7), index % 7];
  const marks = board(request);
  const neighbours = [[row - 1, column], [row + 1, column], [row, column - 1], [row, column + 1]];
  return neighbours.every(([r, c]) => Math.min(r, c) >= 0 && Math.max(r, c) < 7 && marks[r * 7 + c] === '.');
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const message = JSON.parse(line);
  const id = message.id;
  switch (message.type) {
    case 'hello': return send({ type: 'hello', protocol: PROTOCOL, name: NAME, version: '1.0' });
    case 'new_game': return send({ type: 'ready', id });
    case 'ping': return send({ type: 'pong', id });
    case 'place_block': { // blocks score for nobody: a random free cell
      const marks = board(message);
      return send({ type: 'block', id, cell: randomOf(CELLS.filter((_, i) => marks[i] === '.')) });
    }
    case 'play_stone': return send({ type: 'stone', id, cell: chooseStone(message) });
    case 'pie_decision': return send({ type: 'pie', id, swap: shouldSwap(message) });
    case 'game_over': return log(`game ${message.game}: ${message.result} won (${message.reason}), I was ${message.color}`);
    case 'quit': return process.exit(0);
  }
});
