// A greedy Pah Tum bot in Java 17, standard library only. It plays the stone
// that gains the most points now, counting what the stone scores for itself
// and what it takes away from the opponent (the points the opponent would
// score on that cell). It speaks the pahtum-arena protocol (protocol.md): one
// JSON message per line on stdin, one answer per line on stdout.
//
// Run without a build step: java Bot.java
// Copy it and improve chooseStone and shouldSwap.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

public class Bot {
    static final String NAME = "java-starter";
    static final int PROTOCOL = 1; // the protocol version this bot was written for
    static final int[] RUN_POINTS = {0, 0, 0, 3, 10, 25, 56, 119}; // points of a run of n stones
    static final char FREE = '.', BLOCK = '#', WHITE = 'W', BLACK = 'B';
    static final Random RANDOM = new Random();
    // Answers go to stdout, one line each, flushed: the referee waits for the
    // line, and an unflushed answer is a timeout. Autoflush does it on println.
    static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    // -----------------------------------------------------------------------
    // A tiny JSON reader: just enough for the referee's messages. A message is
    // an object; the bot needs a few fields: strings ("type", "color"),
    // numbers ("id") and arrays of strings ("blocks", "white", "black").
    // Nested objects ("rules", "clock", "time", "score") are skipped over.
    // -----------------------------------------------------------------------
    static final class Message {
        String type = "", color = "";
        long id;
        List<String> blocks = List.of(), white = List.of(), black = List.of();
    }

    static final class Reader {
        private final String s;
        private int pos;

        Reader(String text) { s = text; }

        Message message() {
            Message m = new Message();
            expect('{');
            if (consume('}')) return m;
            do {
                String key = string();
                expect(':');
                switch (key) {
                    case "type" -> m.type = string();
                    case "color" -> m.color = string();
                    case "id" -> m.id = number();
                    case "blocks" -> m.blocks = strings();
                    case "white" -> m.white = strings();
                    case "black" -> m.black = strings();
                    default -> skipValue();
                }
            } while (consume(','));
            expect('}');
            return m;
        }

        private char peek() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) pos++;
            return pos < s.length() ? s.charAt(pos) : '\0';
        }
        private boolean consume(char c) {
            if (peek() != c) return false;
            pos++;
            return true;
        }
        private void expect(char c) {
            if (!consume(c)) throw new IllegalArgumentException("expected '" + c + "' at character " + pos);
        }
        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (pos < s.length() && s.charAt(pos) != '"') {
                if (s.charAt(pos) == '\\') pos++; // the strings we read need no unescaping beyond this
                if (pos < s.length()) out.append(s.charAt(pos++));
            }
            expect('"');
            return out.toString();
        }
        private long number() {
            peek();
            int start = pos;
            while (pos < s.length() && (Character.isDigit(s.charAt(pos)) || s.charAt(pos) == '-')) pos++;
            return Long.parseLong(s.substring(start, pos));
        }
        private List<String> strings() {
            List<String> out = new ArrayList<>();
            expect('[');
            if (consume(']')) return out;
            do out.add(string()); while (consume(','));
            expect(']');
            return out;
        }
        private void skipValue() { // any value: string, object, array, number, true, false, null
            char c = peek();
            if (c == '"') { string(); return; }
            if (c == '{' || c == '[') {
                int depth = 0;
                do {
                    char here = s.charAt(pos);
                    if (here == '"') { string(); continue; }
                    if (here == '{' || here == '[') depth++;
                    if (here == '}' || here == ']') depth--;
                    pos++;
                } while (depth > 0 && pos < s.length());
                return;
            }
            while (pos < s.length() && ",}]".indexOf(s.charAt(pos)) < 0) pos++;
        }
    }

    // -----------------------------------------------------------------------
    // The board: 49 marks, index = row * 7 + column, "a1" (bottom-left) is 0.
    // -----------------------------------------------------------------------
    static int indexOf(String cell) { return (cell.charAt(1) - '1') * 7 + (cell.charAt(0) - 'a'); }
    static String cellOf(int index) { return "" + (char) ('a' + index % 7) + (char) ('1' + index / 7); }

    // Every request carries the whole board.
    static char[] board(Message m) {
        char[] board = new char[49];
        Arrays.fill(board, FREE);
        for (String cell : m.blocks) board[indexOf(cell)] = BLOCK;
        for (String cell : m.white) board[indexOf(cell)] = WHITE;
        for (String cell : m.black) board[indexOf(cell)] = BLACK;
        return board;
    }

    // Points of `color` on `board`: every row and column, run by run.
    static int points(char[] board, char color) {
        int total = 0;
        for (int line = 0; line < 7; line++) {
            int rowRun = 0, columnRun = 0;
            for (int k = 0; k <= 7; k++) { // k = 7 closes the runs that reach the edge
                if (k < 7 && board[line * 7 + k] == color) rowRun++; else { total += RUN_POINTS[rowRun]; rowRun = 0; }
                if (k < 7 && board[k * 7 + line] == color) columnRun++; else { total += RUN_POINTS[columnRun]; columnRun = 0; }
            }
        }
        return total;
    }

    // How many points a stone of `color` on `index` would add.
    static int gain(char[] board, int index, char color) {
        int before = points(board, color);
        char[] after = board.clone();
        after[index] = color;
        return points(after, color) - before;
    }

    static String randomOf(List<String> cells) { return cells.get(RANDOM.nextInt(cells.size())); }

    // The greedy choice: own gain plus the opponent's gain denied; ties at random.
    static String chooseStone(Message m) {
        char[] board = board(m);
        char me = m.color.equals("white") ? WHITE : BLACK;
        char opponent = me == WHITE ? BLACK : WHITE;
        int best = -1;
        List<String> bestCells = new ArrayList<>();
        for (int i = 0; i < 49; i++) {
            if (board[i] != FREE) continue;
            int value = gain(board, i, me) + gain(board, i, opponent);
            if (value > best) { best = value; bestCells.clear(); }
            if (value == best) bestCells.add(cellOf(i));
        }
        return randomOf(bestCells);
    }

    // Blocks score for nobody: a random free cell.
    static String chooseBlock(Message m) {
        char[] board = board(m);
        List<String> free = new ArrayList<>();
        for (int i = 0; i < 49; i++) if (board[i] == FREE) free.add(cellOf(i));
        return randomOf(free);
    }

    // Pie rule: swap when White's first stone has all four neighbours free, so
    // that it can grow in every direction; keep when it is hemmed in.
    static boolean shouldSwap(Message m) {
        char[] board = board(m);
        int index = indexOf(m.white.get(0));
        int row = index / 7, column = index % 7;
        int[][] steps = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
        for (int[] step : steps) {
            int r = row + step[0], c = column + step[1];
            if (r < 0 || r > 6 || c < 0 || c > 6 || board[r * 7 + c] != FREE) return false;
        }
        return true;
    }

    static void send(String json) { OUT.println(json); }
    // Logs go to stderr, which the referee keeps; stdout is only for answers.
    static void log(String text) { System.err.println("[" + NAME + "] " + text); }
    static String answer(String type, long id, String rest) {
        return "{\"type\":\"" + type + "\",\"id\":" + id + rest + "}";
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Message m;
            try {
                m = new Reader(line).message();
            } catch (RuntimeException error) {
                log("cannot read a line: " + error.getMessage());
                continue;
            }
            switch (m.type) {
                case "hello" -> send("{\"type\":\"hello\",\"protocol\":" + PROTOCOL + ",\"name\":\"" + NAME + "\",\"version\":\"1.0\"}");
                case "new_game" -> send(answer("ready", m.id, ""));
                case "ping" -> send(answer("pong", m.id, ""));
                case "place_block" -> send(answer("block", m.id, ",\"cell\":\"" + chooseBlock(m) + "\""));
                case "play_stone" -> send(answer("stone", m.id, ",\"cell\":\"" + chooseStone(m) + "\""));
                case "pie_decision" -> send(answer("pie", m.id, ",\"swap\":" + shouldSwap(m)));
                case "game_over" -> log("game over, I was " + m.color);
                case "quit" -> { return; }
                default -> log("unknown message type " + m.type);
            }
        }
    }
}
