//! What a person sees of their game against a bot at the terminal (`arena
//! play`): the board every command draws ([`crate::board`]: coordinates on
//! the sides, the last move in parentheses, blocks as `#`, the stones of
//! scoring runs in capitals) and both scores with the players' names; what
//! the bot played since the person's last move ([`Commentary::announce`]);
//! and how the game ended, at a full board with the scoring runs listed.
//! Everything comes back as text for the terminal to print (the prompt and
//! the person's input are [`crate::prompt`]'s). Colour comes from
//! `anstyle`; the terminal's `anstream` drops it on dumb terminals, in pipes
//! and under `NO_COLOR`. Names are escaped: a bot chose its own.

use std::fmt::Write;

use pahtum::{Action, Cell, Color, Game, Seat};
use pahtum_protocol::Reason;
use pahtum_protocol::untrusted::escape;
use pahtum_record::{Forfeit, GameRecord, GameSpec, Players};

use crate::board::{BLACK_STONE, WHITE_STONE, board as grid, runs};

/// The board of `game` with `last` marked, then one line of scores naming
/// the two sides.
pub fn board(game: &Game, last: Option<Cell>, white: &str, black: &str) -> String {
    let score = game.score();
    let (white_stone, black_stone) = (WHITE_STONE.bold(), BLACK_STONE.bold());
    format!(
        "{}  {white_stone}W{white_stone:#} White {white}: {}   {black_stone}B{black_stone:#} Black {black}: {}\n",
        grid(game.position(), last),
        score.white,
        score.black
    )
}

/// The final board of `game`, then each side's points and scoring runs.
pub fn final_board(game: &Game, white: &str, black: &str) -> String {
    let labels = [format!("White {white}"), format!("Black {black}")];
    format!(
        "{}  The stones in capitals make the scoring runs.\n{}",
        grid(game.position(), None),
        runs(game.position(), [&labels[0], &labels[1]])
    )
}

/// The cell of the last block or stone played, marked on the board.
pub fn last_cell(game: &Game) -> Option<Cell> {
    game.history().iter().rev().find_map(|action| match action {
        Action::Block(cell) | Action::Stone(cell) => Some(*cell),
        Action::Pie(_) => None,
    })
}

/// What the terminal tells the person of their game: the sides, and how many plies it has announced.
#[derive(Debug)]
pub struct Commentary<'a> {
    spec: &'a GameSpec,
    person: Seat,
    names: Players,
    /// The plies of the game's history already told (the given ones count as told).
    announced: usize,
}

impl<'a> Commentary<'a> {
    /// The commentary of the game `spec` in which the person sits at `person`, the two seats' names
    /// `names`: the plies the game starts from are not announced.
    pub fn new(spec: &'a GameSpec, person: Seat, names: Players) -> Commentary<'a> {
        Commentary {
            spec,
            person,
            names,
            announced: spec.opening.len(),
        }
    }

    /// The line that starts the game: the person's colour, the bot, where to find help.
    pub fn welcome(&self) -> String {
        format!(
            "You play {} against {}. Type help for the rules and commands.\n",
            self.spec.initial_game().color_of(self.person),
            escape(self.names.of(self.person.other()))
        )
    }

    /// The name of whoever plays `color` in `game`, escaped for the terminal as every name is.
    fn name(&self, game: &Game, color: Color) -> std::borrow::Cow<'_, str> {
        escape(self.names.of(game.seat_of(color)))
    }

    /// The board of `game`, its last move marked, after an empty line.
    pub fn board(&self, game: &Game) -> String {
        let (white, black) = (self.name(game, Color::White), self.name(game, Color::Black));
        format!("\n{}", board(game, last_cell(game), &white, &black))
    }

    /// What the bot played since the last announcement, a line each.
    pub fn announce(&mut self, game: &Game) -> String {
        let by = escape(self.names.of(self.person.other())).into_owned();
        let mut text = String::new();
        let mut replayed = self.spec.initial_game();
        for (index, &action) in game.history().iter().enumerate() {
            let seat = replayed.seat_to_act();
            replayed.play(action).expect("the referee played it by the rules");
            if index < self.announced || seat == Some(self.person) {
                continue;
            }
            match action {
                Action::Pie(true) => writeln!(
                    text,
                    "{by} swaps: White's first stone is now theirs, and you play {}.",
                    replayed.color_of(self.person)
                ),
                Action::Pie(false) => writeln!(text, "{by} keeps the colours."),
                action => writeln!(text, "{by} plays {action}."),
            }
            .unwrap();
        }
        self.announced = game.history().len();
        text
    }

    /// The person took moves back: the plies taken back are announced again when they are played again.
    pub fn undone(&mut self) {
        self.announced = self.spec.opening.len();
    }

    /// How the game `record` (replayed: `game`) ended, after what the bot played last: a full board with
    /// its scoring runs and the points; a resignation once, without the points of a board left unfilled;
    /// a forfeit with the board and each forfeit's evidence (as `evidence` renders it).
    pub fn ending(&mut self, game: &Game, record: &GameRecord, evidence: impl Fn(&Forfeit) -> String) -> String {
        let mut text = self.announce(game);
        let winner = |color: Color| format!("{} ({color}) wins", self.name(game, color));
        let termination = &record.termination;
        match (termination.reason, record.result.winner()) {
            (Reason::Normal, winner_color) => {
                let (white, black) = (self.name(game, Color::White), self.name(game, Color::Black));
                write!(text, "\n{}", final_board(game, &white, &black)).unwrap();
                let score = game.score();
                match winner_color {
                    Some(color) => writeln!(
                        text,
                        "{}, {} to {}.",
                        winner(color),
                        score.of_color(color),
                        score.of_color(color.opponent())
                    ),
                    None => writeln!(text, "A draw, {} to {}.", score.white, score.black),
                }
                .unwrap();
            }
            (Reason::Resign, Some(color)) => writeln!(text, "You resigned: {}.", winner(color)).unwrap(),
            (_, winner_color) => {
                text.push_str(&self.board(game));
                match winner_color {
                    Some(color) => writeln!(text, "{} by forfeit.", winner(color)),
                    None => writeln!(text, "A draw: both sides forfeited."),
                }
                .unwrap();
                for (reason, forfeit) in termination.forfeits() {
                    let (bot, evidence) = (escape(&forfeit.bot), evidence(forfeit));
                    writeln!(text, "{bot} lost by {reason}: {evidence}").unwrap();
                }
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pahtum::Layout;
    use pahtum_protocol::move_time;
    use pahtum_tournament::testing::{forfeited, played};
    use std::time::Duration;

    fn plain(text: &str) -> String {
        anstream::adapter::strip_str(text).to_string()
    }

    #[test]
    fn the_last_move_is_in_parentheses_and_the_scores_follow() {
        let blocks = vec!["a1".parse().unwrap()];
        let mut game = Game::new(&Layout::Fixed { blocks }, false).unwrap();
        let g7: Cell = "g7".parse().unwrap();
        game.play(Action::Stone(g7)).unwrap();
        assert_eq!(last_cell(&game), Some(g7));
        let drawn = plain(&board(&game, Some(g7), "you", "engine"));
        assert!(drawn.contains("  7 | . . . . . .(w)| 7\n"), "{drawn}");
        assert!(drawn.contains("  1 | # . . . . . . | 1\n"), "{drawn}");
        assert!(drawn.ends_with("W White you: 0   B Black engine: 0\n"), "{drawn}");
    }

    #[test]
    fn the_final_board_lists_each_sides_runs_under_its_name() {
        let blocks = vec!["a1".parse().unwrap()];
        let mut game = Game::new(&Layout::Fixed { blocks }, false).unwrap();
        for cell in ["a7", "a6", "b7", "b6", "c7", "c6", "d7", "b5", "g1"] {
            game.play(Action::Stone(cell.parse().unwrap())).unwrap();
        }
        let drawn = plain(&final_board(&game, "you", "engine"));
        assert!(drawn.contains("  7 | W W W W . . . | 7\n"), "{drawn}");
        assert!(
            drawn.ends_with("  White you 10 = a7-d7 (10)\n  Black engine 3 = a6-c6 (3)\n"),
            "{drawn}"
        );
    }

    /// A game with the pie rule on a board of one block (b2).
    fn spec() -> GameSpec {
        let blocks = ["b2".parse().unwrap()];
        GameSpec::fixed("play", &blocks, true, move_time(Duration::from_secs(1))).unwrap()
    }

    /// The names of the seats: a bot that chose a name to clear the screen, then the person.
    fn names() -> Players {
        Players {
            first: "bot\x1b[2J".to_owned(),
            second: "you".to_owned(),
        }
    }

    #[test]
    fn the_bots_plies_are_announced_once_and_again_after_an_undo() {
        let spec = spec();
        let mut commentary = Commentary::new(&spec, Seat::Second, names());
        assert_eq!(
            commentary.welcome(),
            "You play black against bot\\x1b[2J. Type help for the rules and commands.\n"
        );
        let mut game = spec.initial_game();
        game.play(Action::Stone("d4".parse().unwrap())).unwrap();
        assert_eq!(commentary.announce(&game), "bot\\x1b[2J plays d4.\n");
        assert_eq!(commentary.announce(&game), "");
        // The person swaps: their own decision is not announced, the bot's next stone is.
        game.play(Action::Pie(true)).unwrap();
        game.play(Action::Stone("a1".parse().unwrap())).unwrap();
        assert_eq!(commentary.announce(&game), "bot\\x1b[2J plays a1.\n");
        commentary.undone();
        assert_eq!(
            commentary.announce(&game),
            "bot\\x1b[2J plays d4.\nbot\\x1b[2J plays a1.\n"
        );
        let drawn = plain(&commentary.board(&game));
        assert!(drawn.starts_with('\n') && drawn.contains("(b)"), "{drawn}");
        // The board escapes the names as every other line does.
        assert!(drawn.ends_with("W White you: 0   B Black bot\\x1b[2J: 0\n"), "{drawn}");
    }

    #[test]
    fn the_bots_pie_decision_is_announced_with_the_persons_new_colour() {
        let spec = spec();
        let Players { first, second } = names();
        let names = Players {
            first: second,
            second: first,
        };
        let mut commentary = Commentary::new(&spec, Seat::First, names);
        let mut game = spec.initial_game();
        game.play(Action::Stone("d4".parse().unwrap())).unwrap();
        assert_eq!(commentary.announce(&game), "");
        game.play(Action::Pie(true)).unwrap();
        assert_eq!(
            commentary.announce(&game),
            "bot\\x1b[2J swaps: White's first stone is now theirs, and you play black.\n"
        );
    }

    #[test]
    fn a_full_board_ends_with_its_runs_and_points_and_a_forfeit_with_its_evidence() {
        let record = played("000-00-a");
        let game = record.replay().unwrap();
        let spec = GameSpec::of_record("play", &record);
        let names = record.players.clone();
        let mut commentary = Commentary::new(&spec, Seat::First, names.clone());
        let ended = plain(&commentary.ending(&game, &record, |_| unreachable!()));
        assert!(
            ended.contains("  The stones in capitals make the scoring runs.\n"),
            "{ended}"
        );
        let score = game.score();
        let last = match record.result.winner() {
            Some(color) => format!(
                "{} ({color}) wins, {} to {}.\n",
                names.of(game.seat_of(color)),
                score.of_color(color),
                score.of_color(color.opponent())
            ),
            None => format!("A draw, {} to {}.\n", score.white, score.black),
        };
        assert!(ended.ends_with(&last), "{ended}");
        let forfeit = forfeited(record.clone(), Seat::Second, Reason::Timeout);
        let mut commentary = Commentary::new(&spec, Seat::First, names);
        let ended = plain(&commentary.ending(&game, &forfeit, |forfeit| format!("[{}]", forfeit.detail)));
        assert!(!ended.contains("scoring runs"), "{ended}");
        assert!(
            ended.ends_with("a (white) wins by forfeit.\nb lost by timeout: [test]\n"),
            "{ended}"
        );
    }
}
