//! What a person types at `arena play`'s prompt, read without trusting it:
//! every line is either a command or a move that the rules accept now, or a
//! one-line explanation of what is wrong and what is allowed; and the prompt
//! itself, and the text of `help`.
//!
//! The notation of a cell or an action is the rules' (`pahtum`'s `FromStr`);
//! what is here is a person's side of the terminal (the commands, the
//! explanations in words, the escaping of what they typed), which neither
//! the rules nor the bots' protocol have, so it lies with the rest of what a
//! person reads ([`crate::play`] draws the board).

use pahtum::{Action, Game, Phase};

/// One line of the person's input, understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A legal action in the current position (not yet played).
    Play(Action),
    /// Show the rules and the commands ([`HELP`]).
    Help,
    /// Take back the last pair of moves.
    Undo,
    /// Redraw the board.
    Board,
    /// Resign and end the game.
    Quit,
}

/// What is allowed now, for the prompt and for error messages.
pub fn allowed(game: &Game) -> &'static str {
    match game.phase() {
        Phase::PieDecision => "swap or keep (or help, undo, board, quit)",
        Phase::PlaceBlocks => "a free cell for a block, like d4 (or help, undo, board, quit)",
        _ => "a free cell, like d4 (or help, undo, board, quit)",
    }
}

/// The prompt in the position `game`, the person's turn: the move's number, their colour and what they
/// may type.
pub fn prompt(game: &Game) -> String {
    let color = game.color_to_act().expect("the game is on");
    format!(
        "Move {}, you are {color}: {}> ",
        game.history().len() + 1,
        allowed(game)
    )
}

/// Reads one line in the position `game`; `Err` holds the one line to show.
pub fn parse(game: &Game, line: &str) -> Result<Input, String> {
    let word = line.trim().to_ascii_lowercase();
    match word.as_str() {
        "" => return Err(format!("Type {}.", allowed(game))),
        "help" | "?" | "h" => return Ok(Input::Help),
        "undo" | "u" => return Ok(Input::Undo),
        "board" | "b" => return Ok(Input::Board),
        "quit" | "q" | "exit" | "resign" => return Ok(Input::Quit),
        _ => {}
    }
    let action = match (game.phase(), word.as_str()) {
        (Phase::PieDecision, "swap" | "s") => Action::Pie(true),
        (Phase::PieDecision, "keep" | "k") => Action::Pie(false),
        (Phase::PieDecision, _) => return Err(format!("{word:?} is not a pie decision: type swap or keep.")),
        (Phase::PlaceBlocks, cell) => Action::Block(parse_cell(cell, game)?),
        (_, "swap" | "keep") => return Err("There is no pie decision now: type a free cell, like d4.".to_owned()),
        (_, cell) => Action::Stone(parse_cell(cell, game)?),
    };
    game.check(action)
        .map_err(|illegal| format!("{word} cannot be played: {illegal}. Type {}.", allowed(game)))?;
    Ok(Input::Play(action))
}

fn parse_cell(word: &str, game: &Game) -> Result<pahtum::Cell, String> {
    word.parse().map_err(|_| {
        format!(
            "{:?} is not a cell or a command: cells are a1 to g7 (column a-g, then row 1-7). Type {}.",
            pahtum_protocol::untrusted::escape(word),
            allowed(game)
        )
    })
}

/// The text of `help`.
pub const HELP: &str = "\
Pah Tum: players take turns to fill the free cells; when the board is full,
every horizontal or vertical run of n stones of one colour scores
3, 10, 25, 56, 119 points for n = 3..7, and the higher total wins.
Commands:
  d4      play a stone (or place a block) on cell d4: column a-g, row 1-7
  swap    at the pie decision: take White's first stone as yours
  keep    at the pie decision: keep the colours
  undo    take back your last move and the bot's answer
  board   draw the board again
  help    this text
  quit    resign and end the game (end of input does the same)";

#[cfg(test)]
mod tests {
    use super::*;
    use pahtum::{Cell, Layout};

    fn game(pie: bool) -> Game {
        let blocks = ["a1", "b2", "c3", "d4", "e5"]
            .map(|cell| cell.parse::<Cell>().unwrap())
            .to_vec();
        Game::new(&Layout::Fixed { blocks }, pie).unwrap()
    }

    #[test]
    fn commands_and_cells_are_understood() {
        let game = game(true);
        assert_eq!(parse(&game, " Help \n"), Ok(Input::Help));
        assert_eq!(parse(&game, "undo"), Ok(Input::Undo));
        assert_eq!(parse(&game, "quit"), Ok(Input::Quit));
        assert_eq!(parse(&game, "board"), Ok(Input::Board));
        assert_eq!(
            parse(&game, "G7"),
            Ok(Input::Play(Action::Stone("g7".parse().unwrap())))
        );
    }

    #[test]
    fn bad_input_gets_one_line_saying_what_is_allowed() {
        let game = game(true);
        for (line, expected) in [
            ("", "Type a free cell"),
            ("h9", "is not a cell or a command"),
            ("hello", "is not a cell or a command"),
            ("d4", "d4 cannot be played"),
            ("swap", "There is no pie decision now"),
            ("\x1b[2J", "\\x1b[2j"),
        ] {
            let error = parse(&game, line).unwrap_err();
            assert!(error.contains(expected), "{line:?}: {error}");
            assert!(!error.contains('\n') && !error.contains('\x1b'), "{line:?}: {error}");
        }
    }

    #[test]
    fn the_prompt_numbers_the_move_and_says_what_is_allowed() {
        let mut game = game(true);
        assert_eq!(
            prompt(&game),
            "Move 1, you are white: a free cell, like d4 (or help, undo, board, quit)> "
        );
        game.play(Action::Stone("g7".parse().unwrap())).unwrap();
        assert_eq!(
            prompt(&game),
            "Move 2, you are black: swap or keep (or help, undo, board, quit)> "
        );
    }

    #[test]
    fn the_pie_decision_takes_swap_or_keep_only() {
        let mut game = game(true);
        game.play(Action::Stone("g7".parse().unwrap())).unwrap();
        assert_eq!(parse(&game, "swap"), Ok(Input::Play(Action::Pie(true))));
        assert_eq!(parse(&game, "keep"), Ok(Input::Play(Action::Pie(false))));
        assert!(parse(&game, "a2").unwrap_err().contains("swap or keep"));
    }
}
