//! Opening books: the openings a tournament's layout rounds start from, one a line of a text file.
//!
//! People write books by hand, so the format is as plain as it can be (RECORD.md, "Opening books"):
//!
//! ```text
//! # A comment, from the start of the line; blank lines are skipped.
//! a1 d4 g7 b2 c3 | c6 keep d3
//! | #a1 #b2 #c3 #d4 #e5 d6
//! ```
//!
//! Before the `|`, the blocked cells; after it, the given plies in the protocol's notation (`d4` a
//! stone, `#d4` a block a player placed, `swap` or `keep` the pie decision), separated by blanks or
//! commas. A line either lists its blocks before the `|` (the game's layout is given) or places every
//! one of them with `#cells` after it (the players placed them); the block count is the number of its
//! blocks either way. Every line is parsed, then played by the rules it implies, so that a book that
//! loads is a book whose every opening a game can start from; a line that is not is refused with its
//! number and why.

use pahtum::{Action, Cell, ParseActionError, ParseCellError, SetupError};
use pahtum_protocol::{Placement, Rules};
use pahtum_record::{OpeningError, play_opening};
use serde::{Deserialize, Serialize};

/// A book as a tournament plays it: its file, its order, and every opening in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Openings {
    /// The book's file, as the tournament file (or `arena match --openings`) names it.
    pub file: String,
    /// Played in an order shuffled by the tournament's seed (else in the book's order).
    pub shuffled: bool,
    /// The openings, in the book's order.
    pub openings: Vec<BookOpening>,
}

/// Why a book cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum ReadBookError {
    /// The file could not be read.
    #[error("cannot read the book {file:?}")]
    Read {
        /// The book's file, as named.
        file: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line is no opening.
    #[error("{file}")]
    Line {
        /// The book's file, as named.
        file: String,
        /// The line and why.
        #[source]
        error: BookError,
    },
    /// The book has no opening.
    #[error("the book {file:?} has no opening: give one or more, e.g. the line `a1 d4 g7 b2 c3 | c6`")]
    Empty {
        /// The book's file, as named.
        file: String,
    },
}

impl Openings {
    /// The book `file` (as named) whose text `read` gives, every opening checked by the rules with the pie
    /// rule `pie`, to be played in its order or `shuffled`.
    pub fn read(
        file: &str,
        shuffled: bool,
        pie: bool,
        read: impl FnOnce(&str) -> std::io::Result<String>,
    ) -> Result<Openings, ReadBookError> {
        let text = read(file).map_err(|source| ReadBookError::Read {
            file: file.to_owned(),
            source,
        })?;
        let openings = parse(&text, pie).map_err(|error| ReadBookError::Line {
            file: file.to_owned(),
            error,
        })?;
        if openings.is_empty() {
            return Err(ReadBookError::Empty { file: file.to_owned() });
        }
        Ok(Openings {
            file: file.to_owned(),
            shuffled,
            openings,
        })
    }
}

/// `error` and each of its causes, `: ` between them: what a person reads of a book's fault.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut said = error.to_string();
    let mut cause = error.source();
    while let Some(source) = cause {
        said += &format!(": {source}");
        cause = source.source();
    }
    said
}

/// One opening of a book.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BookOpening {
    /// Its line in the book's file, from 1.
    pub line: usize,
    /// The blocked cells before the `|`, in board order; empty when the players place them.
    #[schemars(with = "Vec<String>")]
    pub blocks: Vec<Cell>,
    /// The plies given after the `|`.
    #[schemars(with = "Vec<String>")]
    pub plies: Vec<Action>,
}

impl BookOpening {
    /// The rules of a game from this opening, with the pie rule `pie`: its block count, and who placed them.
    pub fn rules(&self, pie: bool) -> Rules {
        let placed = self.plies.iter().filter(|ply| matches!(ply, Action::Block(_))).count();
        Rules {
            pie,
            blocks: self.blocks.len() + placed,
            placement: if self.blocks.is_empty() && placed > 0 {
                Placement::Players
            } else {
                Placement::Fixed
            },
        }
    }

    /// The opening as a book's line writes it.
    pub fn to_line(&self) -> String {
        let words = |items: Vec<String>| items.join(" ");
        let blocks = words(self.blocks.iter().map(Cell::to_string).collect());
        let plies = words(self.plies.iter().map(Action::to_string).collect());
        match (blocks.is_empty(), plies.is_empty()) {
            (true, _) => format!("| {plies}"),
            (false, true) => format!("{blocks} |"),
            (false, false) => format!("{blocks} | {plies}"),
        }
    }
}

/// A line of a book that is not an opening.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}")]
pub struct BookError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    #[source]
    pub fault: BookFault,
}

/// What is wrong with a line of a book.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BookFault {
    /// The line has no `|`, or more than one.
    #[error("an opening is the blocked cells, one `|`, then the given plies, e.g. `a1 d4 g7 b2 c3 | c6 keep d3`")]
    Bar,
    /// A word before the `|` is not a cell.
    #[error("{text:?} before the `|` is not a cell")]
    Cell {
        /// The word.
        text: String,
        /// Why.
        #[source]
        cell: ParseCellError,
    },
    /// A word after the `|` is not a ply.
    #[error("ply {ply}")]
    Ply {
        /// Its number, from 1.
        ply: usize,
        /// Why.
        #[source]
        action: ParseActionError,
    },
    /// Blocks listed and placed on the same line.
    #[error(
        "the line lists blocks before the `|` and places more with `#cells` after it: give them one way, all \
         before the `|` (a given layout) or all as `#cells` (placed by the players)"
    )]
    Mixed,
    /// No block at all.
    #[error("the opening has no blocks: list them before the `|`, or place them with `#cells` after it")]
    NoBlocks,
    /// The blocks are not a layout.
    #[error("the blocks are not a layout")]
    Layout(#[source] SetupError),
    /// The rules refuse the plies.
    #[error("the rules refuse the opening")]
    Rules(#[source] OpeningError),
}

/// The openings of the book `text`, each checked by the rules with the pie rule `pie`, in the book's order;
/// an empty list for a book without one (which the tournament file refuses).
pub fn parse(text: &str, pie: bool) -> Result<Vec<BookOpening>, BookError> {
    text.lines()
        .enumerate()
        .filter(|(_, content)| !(content.trim().is_empty() || content.trim_start().starts_with('#')))
        .map(|(index, content)| {
            let line = index + 1;
            opening(line, content, pie).map_err(|fault| BookError { line, fault })
        })
        .collect()
}

/// The opening of `content`, the book's line `line`.
fn opening(line: usize, content: &str, pie: bool) -> Result<BookOpening, BookFault> {
    let (before, after) = content.split_once('|').ok_or(BookFault::Bar)?;
    if after.contains('|') {
        return Err(BookFault::Bar);
    }
    let split = |part: &str| {
        part.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|word| !word.is_empty())
            .map(str::to_owned)
            .collect::<Vec<String>>()
    };
    let mut blocks = split(before)
        .into_iter()
        .map(|text| text.parse::<Cell>().map_err(|cell| BookFault::Cell { text, cell }))
        .collect::<Result<Vec<Cell>, BookFault>>()?;
    let plies = split(after)
        .iter()
        .enumerate()
        .map(|(index, word)| {
            word.parse::<Action>()
                .map_err(|action| BookFault::Ply { ply: index + 1, action })
        })
        .collect::<Result<Vec<Action>, BookFault>>()?;
    let placed = plies.iter().any(|ply| matches!(ply, Action::Block(_)));
    if placed && !blocks.is_empty() {
        return Err(BookFault::Mixed);
    }
    if !placed && blocks.is_empty() {
        return Err(BookFault::NoBlocks);
    }
    let mut sorted = blocks.clone();
    sorted.sort_unstable();
    if let Some(twice) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(BookFault::Layout(SetupError::Repeated(twice[0])));
    }
    // In board order, as the referee lists the blocks of the games it plays.
    blocks = sorted;
    let opening = BookOpening { line, blocks, plies };
    let mut game = opening.rules(pie).start(&opening.blocks).map_err(BookFault::Layout)?;
    play_opening(&mut game, &opening.plies).map_err(BookFault::Rules)?;
    Ok(opening)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn fault(text: &str) -> (usize, String) {
        let error = parse(text, true).unwrap_err();
        (error.line, chain(&error.fault))
    }

    #[test]
    fn a_book_reads_its_openings_and_skips_comments_and_blank_lines() {
        let text = "# made by hand\n\na1 d4 g7 b2 c3 | c6 keep d3\n  # indented comment\n| #a1 #b2 #c3 #d4 #e5 d6\ng7,a1,d4,b2,c3 |\n";
        let book = parse(text, true).unwrap();
        assert_eq!(book.len(), 3);
        assert_eq!(book[0].line, 3);
        assert_eq!(book[0].to_line(), "a1 b2 c3 d4 g7 | c6 keep d3");
        assert_eq!(book[0].rules(true).placement, Placement::Fixed);
        assert_eq!(book[1].line, 5);
        assert_eq!(book[1].rules(true).placement, Placement::Players);
        assert_eq!(book[1].rules(true).blocks, 5);
        assert_eq!(book[2].plies, Vec::<Action>::new());
        assert_eq!(book[2].blocks, book[0].blocks);
    }

    #[test]
    fn a_line_that_is_no_opening_is_refused_with_its_number_and_why() {
        assert_eq!(fault("a1 b2 c3\n").0, 1);
        assert!(fault("a1 b2 c3\n").1.contains("one `|`"));
        let (line, said) = fault("# c\na1 b2 c3 | d4\na1 b2 z9 | d4\n");
        assert_eq!(line, 3);
        assert!(said.contains("\"z9\" before the `|` is not a cell"), "{said}");
        let (_, said) = fault("a1 b2 c3 | d4 jump\n");
        assert!(said.starts_with("ply 2"), "{said}");
        assert!(fault("a1 b2 c3 | #d4 e5\n").1.contains("one way"));
        assert!(fault("| d4\n").1.contains("no blocks"));
        assert!(fault("a1 b2 | d4\n").1.contains("must be odd"));
        assert!(fault("a1 a1 b2 | d4\n").1.contains("listed twice"));
        // A stone on a block, and a pie decision where there is none.
        let (_, said) = fault("a1 b2 c3 | a1\n");
        assert!(said.starts_with("the rules refuse the opening: ply 1 (a1)"), "{said}");
        assert!(fault("a1 b2 c3 | keep\n").1.contains("ply 1 (keep)"));
        // Without the pie rule there is no pie decision.
        assert!(parse("a1 b2 c3 | d4 keep\n", false).is_err());
    }

    /// What `to_line` writes, `parse` reads back the same, for any layout and a legal opening on it.
    fn arbitrary_opening() -> impl Strategy<Value = BookOpening> {
        (
            proptest::sample::subsequence((0..49_u8).collect::<Vec<_>>(), 1..=13),
            any::<u64>(),
            0..10_usize,
        )
            .prop_filter_map("an odd layout", |(cells, seed, plies)| {
                let blocks: Vec<Cell> = cells
                    .iter()
                    .map(|&index| Cell::from_index(index.into()).unwrap())
                    .collect();
                (blocks.len() % 2 == 1).then_some((blocks, seed, plies))
            })
            .prop_map(|(blocks, seed, plies)| {
                let rules = Rules {
                    pie: true,
                    blocks: blocks.len(),
                    placement: Placement::Fixed,
                };
                let mut game = rules.start(&blocks).unwrap();
                let mut given = Vec::new();
                for ply in 0..plies {
                    let legal = game.legal_moves();
                    if legal.len() <= 1 {
                        break;
                    }
                    let action = legal[(seed as usize).wrapping_add(ply * 7) % legal.len()];
                    game.play(action).unwrap();
                    given.push(action);
                }
                BookOpening {
                    line: 1,
                    blocks,
                    plies: given,
                }
            })
    }

    proptest! {
        #[test]
        fn a_line_written_reads_back_the_same(opening in arbitrary_opening()) {
            let read = parse(&opening.to_line(), true).unwrap();
            prop_assert_eq!(read, vec![opening]);
        }
    }
}
