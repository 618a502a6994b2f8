// A greedy Pah Tum bot in C++17, standard library only. It plays the stone
// that gains the most points now, counting what the stone scores for itself
// and what it takes away from the opponent (the points the opponent would
// score on that cell). It speaks the pahtum-arena protocol (protocol.md): one
// JSON message per line on stdin, one answer per line on stdout.
//
// Build: g++ -std=c++17 -O2 -o bot bot.cpp      Run: ./bot
// Copy it and improve choose_stone and should_swap.
#include <array>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

const std::string NAME = "cpp-starter";
const int PROTOCOL = 1;  // the protocol version this bot was written for
const std::array<int, 8> RUN_POINTS = {0, 0, 0, 3, 10, 25, 56, 119};  // points of a run of n stones

std::mt19937 rng{std::random_device{}()};

// ---------------------------------------------------------------------------
// A tiny JSON reader: just enough for the referee's messages. A message is an
// object; the bot needs a few of its fields: strings ("type", "color"),
// numbers ("id") and arrays of strings ("blocks", "white", "black"). Nested
// objects ("rules", "clock", "time", "score") are skipped over.
// ---------------------------------------------------------------------------
struct Message {
    std::string type, color;
    long long id = 0;
    std::vector<std::string> blocks, white, black;
};

class Reader {
public:
    explicit Reader(const std::string& text) : s(text) {}

    Message message() {
        Message m;
        expect('{');
        if (peek() == '}') return ++pos, m;
        do {
            std::string key = string();
            expect(':');
            if (key == "type") m.type = string();
            else if (key == "color") m.color = string();
            else if (key == "id") m.id = number();
            else if (key == "blocks") m.blocks = strings();
            else if (key == "white") m.white = strings();
            else if (key == "black") m.black = strings();
            else skip_value();
        } while (consume(','));
        expect('}');
        return m;
    }

private:
    const std::string& s;
    size_t pos = 0;

    [[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + " at byte " + std::to_string(pos)); }
    char peek() {
        while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
        return pos < s.size() ? s[pos] : '\0';
    }
    bool consume(char c) { return peek() == c ? (++pos, true) : false; }
    void expect(char c) { if (!consume(c)) fail(std::string("expected '") + c + "'"); }

    std::string string() {
        expect('"');
        std::string out;
        while (pos < s.size() && s[pos] != '"') {
            if (s[pos] == '\\') ++pos;  // the referee's strings we read need no unescaping beyond this
            if (pos < s.size()) out += s[pos++];
        }
        expect('"');
        return out;
    }
    long long number() {
        peek();
        size_t used = 0;
        long long value = std::stoll(s.substr(pos), &used);
        pos += used;
        return value;
    }
    std::vector<std::string> strings() {
        std::vector<std::string> out;
        expect('[');
        if (consume(']')) return out;
        do out.push_back(string()); while (consume(','));
        expect(']');
        return out;
    }
    void skip_value() {  // any value: string, object, array, number, true, false, null
        char c = peek();
        if (c == '"') { string(); return; }
        if (c == '{' || c == '[') {
            int depth = 0;
            do {
                if (s[pos] == '"') { string(); continue; }
                if (s[pos] == '{' || s[pos] == '[') ++depth;
                if (s[pos] == '}' || s[pos] == ']') --depth;
                ++pos;
            } while (depth > 0 && pos < s.size());
            return;
        }
        while (pos < s.size() && s[pos] != ',' && s[pos] != '}' && s[pos] != ']') ++pos;
    }
};

// ---------------------------------------------------------------------------
// The board: 49 marks, index = row * 7 + column, "a1" (bottom-left) is 0.
// ---------------------------------------------------------------------------
enum Mark : char { FREE = '.', BLOCK = '#', WHITE = 'W', BLACK = 'B' };
using Board = std::array<Mark, 49>;

int index_of(const std::string& cell) { return (cell[1] - '1') * 7 + (cell[0] - 'a'); }
std::string cell_of(int index) { return {static_cast<char>('a' + index % 7), static_cast<char>('1' + index / 7)}; }

// Every request carries the whole board.
Board board_of(const Message& m) {
    Board board;
    board.fill(FREE);
    for (const auto& cell : m.blocks) board[index_of(cell)] = BLOCK;
    for (const auto& cell : m.white) board[index_of(cell)] = WHITE;
    for (const auto& cell : m.black) board[index_of(cell)] = BLACK;
    return board;
}

// Points of `color` on `board`: every row and column, run by run.
int points(const Board& board, Mark color) {
    int total = 0;
    for (int line = 0; line < 7; ++line) {
        int row_run = 0, column_run = 0;
        for (int k = 0; k <= 7; ++k) {  // k = 7 closes the runs that reach the edge
            if (k < 7 && board[line * 7 + k] == color) ++row_run; else total += RUN_POINTS[row_run], row_run = 0;
            if (k < 7 && board[k * 7 + line] == color) ++column_run; else total += RUN_POINTS[column_run], column_run = 0;
        }
    }
    return total;
}

// How many points a stone of `color` on `index` would add.
int gain(Board board, int index, Mark color) {
    int before = points(board, color);
    board[index] = color;
    return points(board, color) - before;
}

std::string random_of(const std::vector<std::string>& cells) {
    return cells[std::uniform_int_distribution<size_t>(0, cells.size() - 1)(rng)];
}

// The greedy choice: own gain plus the opponent's gain denied; ties at random.
std::string choose_stone(const Message& m) {
    Board board = board_of(m);
    Mark me = m.color == "white" ? WHITE : BLACK;
    Mark opponent = me == WHITE ? BLACK : WHITE;
    int best = -1;
    std::vector<std::string> best_cells;
    for (int i = 0; i < 49; ++i) {
        if (board[i] != FREE) continue;
        int value = gain(board, i, me) + gain(board, i, opponent);
        if (value > best) best = value, best_cells.clear();
        if (value == best) best_cells.push_back(cell_of(i));
    }
    return random_of(best_cells);
}

// Blocks score for nobody: a random free cell.
std::string choose_block(const Message& m) {
    Board board = board_of(m);
    std::vector<std::string> free_cells;
    for (int i = 0; i < 49; ++i)
        if (board[i] == FREE) free_cells.push_back(cell_of(i));
    return random_of(free_cells);
}

// Pie rule: swap when White's first stone has all four neighbours free, so
// that it can grow in every direction; keep when it is hemmed in.
bool should_swap(const Message& m) {
    Board board = board_of(m);
    int index = index_of(m.white.at(0));
    int row = index / 7, column = index % 7;
    const int steps[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (const auto& step : steps) {
        int r = row + step[0], c = column + step[1];
        if (r < 0 || r > 6 || c < 0 || c > 6 || board[r * 7 + c] != FREE) return false;
    }
    return true;
}

// Answers go to stdout, one line each, flushed (std::endl flushes): the
// referee waits for the line, and an unflushed answer is a timeout.
void send(const std::string& json) { std::cout << json << std::endl; }
// Logs go to stderr, which the referee keeps; stdout is only for answers.
void log(const std::string& text) { std::cerr << "[" << NAME << "] " << text << std::endl; }

std::string answer(const std::string& type, long long id, const std::string& rest = "") {
    return "{\"type\":\"" + type + "\",\"id\":" + std::to_string(id) + rest + "}";
}

}  // namespace

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty() || line == "\r") continue;
        Message m;
        try {
            m = Reader(line).message();
        } catch (const std::exception& error) {
            log(std::string("cannot read a line: ") + error.what());
            continue;
        }
        if (m.type == "hello") send("{\"type\":\"hello\",\"protocol\":" + std::to_string(PROTOCOL) + ",\"name\":\"" + NAME + "\",\"version\":\"1.0\"}");
        else if (m.type == "new_game") send(answer("ready", m.id));
        else if (m.type == "ping") send(answer("pong", m.id));
        else if (m.type == "place_block") send(answer("block", m.id, ",\"cell\":\"" + choose_block(m) + "\""));
        else if (m.type == "play_stone") send(answer("stone", m.id, ",\"cell\":\"" + choose_stone(m) + "\""));
        else if (m.type == "pie_decision") send(answer("pie", m.id, std::string(",\"swap\":") + (should_swap(m) ? "true" : "false")));
        else if (m.type == "game_over") log("game over, I was " + m.color);
        else if (m.type == "quit") return 0;
    }
    return 0;
}
