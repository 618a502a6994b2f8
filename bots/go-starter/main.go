// A greedy Pah Tum bot in Go, standard library only. It plays the stone that
// gains the most points now, counting what the stone scores for itself and
// what it takes away from the opponent (the points the opponent would score
// on that cell). It speaks the pahtum-arena protocol (protocol.md): one JSON
// message per line on stdin, one answer per line on stdout.
//
// Build: go build -o bot .      Run: ./bot
// Copy it and improve chooseStone and shouldSwap.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"time"
)

const (
	name     = "go-starter"
	protocol = 1 // the protocol version this bot was written for
)

// The points of a run of n stones.
var runPoints = [8]int{0, 0, 0, 3, 10, 25, 56, 119}

var random = rand.New(rand.NewSource(time.Now().UnixNano()))

// A message from the referee: the few fields this bot needs. encoding/json
// ignores the others ("rules", "clock", "time", "moves", ...).
type message struct {
	Type   string   `json:"type"`
	ID     int64    `json:"id"`
	Color  string   `json:"color"`
	Blocks []string `json:"blocks"`
	White  []string `json:"white"`
	Black  []string `json:"black"`
}

// The board: 49 marks, index = row*7 + column, "a1" (bottom-left) is 0.
type mark byte

const (
	free  mark = '.'
	block mark = '#'
	white mark = 'W'
	black mark = 'B'
)

type board [49]mark

func indexOf(cell string) int { return int(cell[1]-'1')*7 + int(cell[0]-'a') }
func cellOf(index int) string {
	return string([]byte{byte('a' + index%7), byte('1' + index/7)})
}

// boardOf rebuilds the board: every request carries the whole of it.
func boardOf(m *message) board {
	var b board
	for i := range b {
		b[i] = free
	}
	for _, cell := range m.Blocks {
		b[indexOf(cell)] = block
	}
	for _, cell := range m.White {
		b[indexOf(cell)] = white
	}
	for _, cell := range m.Black {
		b[indexOf(cell)] = black
	}
	return b
}

// points of color on b: every row and column, run by run.
func points(b *board, color mark) int {
	total := 0
	for line := 0; line < 7; line++ {
		rowRun, columnRun := 0, 0
		for k := 0; k <= 7; k++ { // k = 7 closes the runs that reach the edge
			if k < 7 && b[line*7+k] == color {
				rowRun++
			} else {
				total += runPoints[rowRun]
				rowRun = 0
			}
			if k < 7 && b[k*7+line] == color {
				columnRun++
			} else {
				total += runPoints[columnRun]
				columnRun = 0
			}
		}
	}
	return total
}

// gain is how many points a stone of color on index would add.
func gain(b board, index int, color mark) int {
	before := points(&b, color)
	b[index] = color
	return points(&b, color) - before
}

func randomOf(cells []string) string { return cells[random.Intn(len(cells))] }

// chooseStone is the greedy choice: own gain plus the opponent's gain
// denied; ties at random.
func chooseStone(m *message) string {
	b := boardOf(m)
	me, opponent := black, white
	if m.Color == "white" {
		me, opponent = white, black
	}
	best := -1
	var bestCells []string
	for i, cell := range b {
		if cell != free {
			continue
		}
		value := gain(b, i, me) + gain(b, i, opponent)
		if value > best {
			best, bestCells = value, nil
		}
		if value == best {
			bestCells = append(bestCells, cellOf(i))
		}
	}
	return randomOf(bestCells)
}

// chooseBlock places a block on a random free cell: blocks score for nobody.
func chooseBlock(m *message) string {
	b := boardOf(m)
	var freeCells []string
	for i, cell := range b {
		if cell == free {
			freeCells = append(freeCells, cellOf(i))
		}
	}
	return randomOf(freeCells)
}

// shouldSwap decides the pie rule: swap when White's first stone has all
// four neighbours free, so that it can grow in every direction; keep when it
// is hemmed in.
func shouldSwap(m *message) bool {
	b := boardOf(m)
	index := indexOf(m.White[0])
	row, column := index/7, index%7
	for _, step := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
		r, c := row+step[0], column+step[1]
		if r < 0 || r > 6 || c < 0 || c > 6 || b[r*7+c] != free {
			return false
		}
	}
	return true
}

// send writes an answer to stdout as one line. os.Stdout is not buffered in
// Go, so the line leaves at once: an unflushed answer would be a timeout.
// (Writing through a bufio.Writer? Flush it after every line.)
func send(answer map[string]any) {
	line, err := json.Marshal(answer)
	if err != nil {
		logf("cannot encode an answer: %v", err)
		return
	}
	os.Stdout.Write(append(line, '\n'))
}

// logf writes to stderr, which the referee keeps; stdout is only for answers.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "["+name+"] "+format+"\n", args...)
}

func main() {
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 64*1024), 1<<20) // the referee's lines are a few KiB
	for lines.Scan() {
		if len(lines.Bytes()) == 0 {
			continue
		}
		var m message
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			logf("cannot read a line: %v", err)
			continue
		}
		switch m.Type {
		case "hello":
			send(map[string]any{"type": "hello", "protocol": protocol, "name": name, "version": "1.0"})
		case "new_game":
			send(map[string]any{"type": "ready", "id": m.ID})
		case "ping":
			send(map[string]any{"type": "pong", "id": m.ID})
		case "place_block":
			send(map[string]any{"type": "block", "id": m.ID, "cell": chooseBlock(&m)})
		case "play_stone":
			send(map[string]any{"type": "stone", "id": m.ID, "cell": chooseStone(&m)})
		case "pie_decision":
			send(map[string]any{"type": "pie", "id": m.ID, "swap": shouldSwap(&m)})
		case "game_over":
			logf("game over, I was %s", m.Color)
		case "quit":
			return
		}
	}
}
