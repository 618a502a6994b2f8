//! Scoring.
//!
//! Every maximal horizontal or vertical run of `n` stones of one colour scores
//! `p(n)`, with `p(1) = p(2) = 0` and `p(n) = n + 2 p(n - 1)`: 3, 10, 25, 56, 119.
//! A run is broken by anything that is not a stone of its colour (an opponent
//! stone, a block or the edge), so a colour's score depends on its own stones
//! only. The score of a line of seven cells is looked up in a 128-entry table
//! indexed by the 7-bit mask of the line; rows are contiguous bits of the
//! bitboard, columns are gathered into 7 bits by one multiplication.

use crate::{Bitboard, Cell, Color, SIZE};

/// `RUN_POINTS[n]`: points for a maximal run of `n` stones.
pub const RUN_POINTS: [u32; SIZE + 1] = {
    let mut points = [0; SIZE + 1];
    let mut n = 3;
    while n <= SIZE {
        points[n] = n as u32 + 2 * points[n - 1];
        n += 1;
    }
    points
};

/// Points of every 7-bit line mask: the sum over its maximal runs.
pub const LINE_POINTS: [u32; 128] = {
    let mut table = [0; 128];
    let mut mask = 0;
    while mask < 128 {
        let mut total = 0;
        let mut run = 0;
        let mut bit = 0;
        while bit <= SIZE {
            if bit < SIZE && mask & (1 << bit) != 0 {
                run += 1;
            } else {
                total += RUN_POINTS[run];
                run = 0;
            }
            bit += 1;
        }
        table[mask] = total;
        mask += 1;
    }
    table
};

const LINE: u64 = (1 << SIZE) - 1;
/// Bits 0, 7, 14, ..., 42: column `a`.
const FILE_A: u64 = 0x0000_0408_1020_4081;
/// Multiplying a column moved to file `a` by this sends the bit of row `k`
/// (bit `7k`) to bit `42 + k`; no two partial products overlap, so no carries.
const GATHER: u64 = {
    let mut magic = 0;
    let mut k = 0;
    while k < SIZE {
        magic |= 1 << (42 - 6 * k);
        k += 1;
    }
    magic
};

/// The 7-bit mask of row `row` (bit `k` is column `k`).
#[inline]
pub const fn row_line(stones: u64, row: usize) -> usize {
    ((stones >> (row * SIZE)) & LINE) as usize
}

/// The 7-bit mask of column `column` (bit `k` is row `k`).
#[inline]
pub const fn column_line(stones: u64, column: usize) -> usize {
    ((((stones >> column) & FILE_A).wrapping_mul(GATHER) >> 42) & LINE) as usize
}

/// Points of one colour's stones.
#[inline]
pub fn points(stones: Bitboard) -> u32 {
    let bits = stones.0;
    let mut total = 0;
    let mut i = 0;
    while i < SIZE {
        total += LINE_POINTS[row_line(bits, i)] + LINE_POINTS[column_line(bits, i)];
        i += 1;
    }
    total
}

/// One scoring run: a maximal horizontal or vertical line of three or more
/// stones of one colour, what the viewers outline and list.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Run {
    /// The run's first cell: its leftmost (horizontal) or lowest (vertical).
    pub start: Cell,
    /// How many stones, 3 to 7.
    pub length: usize,
    /// Along a row (`true`) or a column.
    pub horizontal: bool,
}

impl Run {
    /// The run's cells, from [`Run::start`].
    pub fn cells(self) -> impl Iterator<Item = Cell> {
        let (column, row) = (self.start.column(), self.start.row());
        (0..self.length).filter_map(move |k| {
            if self.horizontal {
                Cell::at(column + k, row)
            } else {
                Cell::at(column, row + k)
            }
        })
    }

    /// The run's points: 3, 10, 25, 56 or 119.
    pub const fn points(self) -> u32 {
        RUN_POINTS[self.length]
    }
}

/// The scoring runs of one colour's stones, rows first (bottom to top, left to
/// right), then columns (left to right, bottom to top); their points add up to
/// [`points`].
pub fn scoring_runs(stones: Bitboard) -> Vec<Run> {
    let mut runs = Vec::new();
    for horizontal in [true, false] {
        for line in 0..SIZE {
            let mut k = 0;
            while k < SIZE {
                let at = |k: usize| {
                    if horizontal {
                        Cell::at(k, line)
                    } else {
                        Cell::at(line, k)
                    }
                };
                let length = (k..SIZE)
                    .take_while(|&j| at(j).is_some_and(|cell| stones.contains(cell)))
                    .count();
                if length >= 3
                    && let Some(start) = at(k)
                {
                    runs.push(Run {
                        start,
                        length,
                        horizontal,
                    });
                }
                k += length.max(1);
            }
        }
    }
    runs
}

/// Both colours' points.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Score {
    /// White's points: the sum over every row and column of the points of its
    /// runs (3, 10, 25, 56, 119 for runs of 3 to 7).
    pub white: u32,
    /// Black's points, counted the same way.
    pub black: u32,
}

impl Score {
    /// Scores two sets of stones.
    #[inline]
    pub fn of(white: Bitboard, black: Bitboard) -> Score {
        Score {
            white: points(white),
            black: points(black),
        }
    }

    /// The points of `color`.
    pub const fn of_color(self, color: Color) -> u32 {
        match color {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// White's points minus Black's.
    pub const fn margin(self) -> i32 {
        self.white as i32 - self.black as i32
    }

    /// The result: higher total wins, equal totals draw.
    pub const fn outcome(self) -> Outcome {
        if self.white > self.black {
            Outcome::White
        } else if self.black > self.white {
            Outcome::Black
        } else {
            Outcome::Draw
        }
    }
}

/// The result of a game, by colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Outcome {
    /// White scored more points.
    White,
    /// Black scored more points.
    Black,
    /// Both scored the same.
    Draw,
}

impl Outcome {
    /// The winning colour, if any.
    pub const fn winner(self) -> Option<Color> {
        match self {
            Outcome::White => Some(Color::White),
            Outcome::Black => Some(Color::Black),
            Outcome::Draw => None,
        }
    }

    /// The outcome in which `color` wins.
    pub const fn win_for(color: Color) -> Outcome {
        match color {
            Color::White => Outcome::White,
            Color::Black => Outcome::Black,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Position;

    #[test]
    fn scoring_runs_add_up_to_the_points_on_random_boards() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..5000 {
            let stones = Bitboard(rng.random::<u64>() & Bitboard::FULL.0);
            let runs = scoring_runs(stones);
            assert_eq!(runs.iter().map(|run| run.points()).sum::<u32>(), points(stones));
            for run in runs {
                assert!(run.cells().all(|cell| stones.contains(cell)));
                assert_eq!(run.cells().count(), run.length);
            }
        }
    }

    #[test]
    fn a_full_row_is_one_run_of_seven() {
        let row: Bitboard = "a2 b2 c2 d2 e2 f2 g2"
            .split(' ')
            .map(|c| c.parse::<Cell>().unwrap())
            .collect();
        let runs = scoring_runs(row);
        assert_eq!(runs.len(), 1);
        assert_eq!(
            (runs[0].start.to_string(), runs[0].length, runs[0].horizontal),
            ("a2".into(), 7, true)
        );
        assert_eq!(runs[0].points(), 119);
    }

    #[test]
    fn run_points_follow_the_recurrence() {
        assert_eq!(RUN_POINTS, [0, 0, 0, 3, 10, 25, 56, 119]);
    }

    #[test]
    fn line_table() {
        assert_eq!(LINE_POINTS[0b1111111], 119);
        assert_eq!(LINE_POINTS[0b1110111], 6);
        assert_eq!(LINE_POINTS[0b0110110], 0);
        assert_eq!(LINE_POINTS[0b0011110], 10);
        assert_eq!(LINE_POINTS[0b1011101], 3);
    }

    #[test]
    fn columns_are_gathered() {
        for column in 0..SIZE {
            for mask in 0..128u64 {
                let mut stones = 0;
                for row in 0..SIZE {
                    if mask & (1 << row) != 0 {
                        stones |= 1 << (row * SIZE + column);
                    }
                }
                assert_eq!(column_line(stones, column), mask as usize);
            }
        }
    }

    /// The worked example of the seed texts: White has a run of three and one of
    /// four (13 points); Black has two runs of two and one of three (3 points).
    #[test]
    fn worked_example_from_the_rules() {
        let position: Position = concat!(
            "......./",
            ".WWWW../",
            "...B.../",
            ".B.B.W./",
            ".B.B.W./",
            ".....W./",
            "#.BB..# w"
        )
        .parse()
        .unwrap();
        assert_eq!(position.score(), Score { white: 13, black: 3 });
        assert_eq!(position.score().outcome(), Outcome::White);
    }

    #[test]
    fn full_row_full_board_and_breaks() {
        let row = Bitboard(0x7f);
        assert_eq!(points(row), 119);
        assert_eq!(points(Bitboard::FULL), 14 * 119);
        // A block in the middle of a full row: two runs of three.
        let broken = Bitboard(0x7f & !(1 << 3));
        assert_eq!(points(broken), 6);
        // A cross: a row of three and a column of three sharing the centre.
        let cross: Bitboard = ["c4", "d4", "e4", "d3", "d5"]
            .iter()
            .map(|c| c.parse().unwrap())
            .collect();
        assert_eq!(points(cross), 6);
    }
}
