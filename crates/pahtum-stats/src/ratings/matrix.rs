//! Results aggregated per pair of players.
//!
//! The likelihood of the rating model depends on the games only through
//! "how many games did i and j play, and how much did i score", so the fit
//! never looks at individual games: 100,000 games between 100 bots become a
//! 100×100 table, and every later step costs the same whatever the number
//! of games. Scores are kept in whole half-points, so the table is exact.

use serde::Serialize;

use crate::{Game, LayoutPair, StatsError};

/// Games played and points scored for every ordered pair of players.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PairMatrix {
    players: usize,
    /// `games[a * players + b]`: games between `a` and `b` (symmetric).
    games: Vec<u64>,
    /// `half_points[a * players + b]`: half-points `a` scored against `b`.
    half_points: Vec<u64>,
}

impl PairMatrix {
    /// An empty table for a pool of `players` players.
    pub fn new(players: usize) -> Self {
        Self {
            players,
            games: vec![0; players * players],
            half_points: vec![0; players * players],
        }
    }

    /// The table of a list of games. Fails on the first invalid game.
    pub fn from_games(players: usize, games: &[Game]) -> Result<Self, StatsError> {
        let mut matrix = Self::new(players);
        for game in games {
            matrix.add_game(game)?;
        }
        Ok(matrix)
    }

    /// The table of a list of layout pairs, each counting as two games.
    /// Fails on the first invalid pair.
    pub fn from_layout_pairs(players: usize, pairs: &[LayoutPair]) -> Result<Self, StatsError> {
        let mut matrix = Self::new(players);
        for pair in pairs {
            matrix.add_layout_pair(pair)?;
        }
        Ok(matrix)
    }

    /// Adds one game. On error the table is unchanged.
    pub fn add_game(&mut self, game: &Game) -> Result<(), StatsError> {
        self.add(game.a, game.b, 1, u64::from(game.half_points()?))
    }

    /// Adds the two games of a layout pair. On error the table is unchanged.
    pub fn add_layout_pair(&mut self, pair: &LayoutPair) -> Result<(), StatsError> {
        self.add(pair.a, pair.b, 2, u64::from(pair.half_points()?))
    }

    /// Adds `games` games between `a` and `b` in which `a` scored `half_points` half-points in all (a
    /// win 2, a draw 1): the same table as adding them one by one, for a caller that counted them
    /// already. On error the table is unchanged.
    pub fn add_games(&mut self, a: usize, b: usize, games: u64, half_points: u64) -> Result<(), StatsError> {
        if half_points > 2 * games {
            return Err(StatsError::InvalidScore {
                score: half_points as f64 / 2.0,
                max: games as f64,
            });
        }
        self.add(a, b, games, half_points)
    }

    /// The number of players in the pool.
    pub fn players(&self) -> usize {
        self.players
    }

    /// Games played between `a` and `b` (0 for an index out of range).
    pub fn games(&self, a: usize, b: usize) -> u64 {
        self.cell(&self.games, a, b)
    }

    /// Points `a` scored against `b` (0 for an index out of range).
    pub fn points(&self, a: usize, b: usize) -> f64 {
        half_to_points(self.cell(&self.half_points, a, b))
    }

    /// All games `a` played.
    pub fn player_games(&self, a: usize) -> u64 {
        self.row(&self.games, a).iter().sum()
    }

    /// All points `a` scored.
    pub fn player_points(&self, a: usize) -> f64 {
        half_to_points(self.row(&self.half_points, a).iter().sum())
    }

    /// Every pair `a < b` that played at least once, with the games played
    /// and the points `a` scored.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (usize, usize, u64, f64)> + '_ {
        (0..self.players).flat_map(move |a| {
            (a + 1..self.players).filter_map(move |b| {
                let games = self.games(a, b);
                (games > 0).then(|| (a, b, games, self.points(a, b)))
            })
        })
    }

    fn add(&mut self, a: usize, b: usize, games: u64, half_points: u64) -> Result<(), StatsError> {
        for index in [a, b] {
            if index >= self.players {
                return Err(StatsError::PlayerOutOfRange {
                    index,
                    players: self.players,
                });
            }
        }
        if a == b {
            return Err(StatsError::SelfPlay { index: a });
        }
        let (ab, ba) = (a * self.players + b, b * self.players + a);
        self.games[ab] += games;
        self.games[ba] += games;
        self.half_points[ab] += half_points;
        self.half_points[ba] += 2 * games - half_points;
        Ok(())
    }

    fn cell(&self, table: &[u64], a: usize, b: usize) -> u64 {
        if a < self.players && b < self.players {
            table[a * self.players + b]
        } else {
            0
        }
    }

    fn row<'a>(&self, table: &'a [u64], a: usize) -> &'a [u64] {
        table.chunks_exact(self.players).nth(a).unwrap_or_default()
    }
}

fn half_to_points(half_points: u64) -> f64 {
    half_points as f64 / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_and_pairs_add_up_from_both_sides() {
        let mut m = PairMatrix::new(3);
        m.add_game(&Game {
            a: 0,
            b: 1,
            score_a: 1.0,
        })
        .unwrap();
        m.add_game(&Game {
            a: 1,
            b: 0,
            score_a: 0.5,
        })
        .unwrap();
        m.add_layout_pair(&LayoutPair {
            a: 2,
            b: 0,
            score_a: 1.5,
        })
        .unwrap();
        assert_eq!(m.games(0, 1), 2);
        assert_eq!(m.points(0, 1), 1.5);
        assert_eq!(m.points(1, 0), 0.5);
        assert_eq!(m.games(0, 2), 2);
        assert_eq!(m.points(0, 2), 0.5);
        assert_eq!(m.player_games(0), 4);
        assert_eq!(m.player_points(0), 2.0);
        let pairs: Vec<_> = m.pairs().collect();
        assert_eq!(pairs, vec![(0, 1, 2, 1.5), (0, 2, 2, 0.5)]);
    }

    #[test]
    fn games_counted_in_bulk_make_the_same_table() {
        let games = [(0, 1, 1.0), (1, 0, 0.5), (0, 1, 0.0), (2, 1, 1.0)].map(|(a, b, score_a)| Game { a, b, score_a });
        let mut bulk = PairMatrix::new(3);
        bulk.add_games(0, 1, 2, 2).unwrap();
        bulk.add_games(1, 0, 1, 1).unwrap();
        bulk.add_games(2, 1, 1, 2).unwrap();
        assert_eq!(bulk, PairMatrix::from_games(3, &games).unwrap());
    }

    #[test]
    fn invalid_results_leave_the_table_unchanged() {
        let mut m = PairMatrix::new(2);
        let before = m.clone();
        let bad = [
            Game {
                a: 0,
                b: 2,
                score_a: 1.0,
            },
            Game {
                a: 1,
                b: 1,
                score_a: 1.0,
            },
            Game {
                a: 0,
                b: 1,
                score_a: 0.7,
            },
        ];
        assert_eq!(
            m.add_game(&bad[0]),
            Err(StatsError::PlayerOutOfRange { index: 2, players: 2 })
        );
        assert_eq!(m.add_game(&bad[1]), Err(StatsError::SelfPlay { index: 1 }));
        assert!(matches!(m.add_game(&bad[2]), Err(StatsError::InvalidScore { .. })));
        assert!(matches!(m.add_games(0, 1, 2, 5), Err(StatsError::InvalidScore { .. })));
        assert_eq!(m.add_games(0, 0, 2, 2), Err(StatsError::SelfPlay { index: 0 }));
        assert_eq!(m, before);
        assert_eq!(m.games(5, 0), 0);
        assert_eq!(m.player_games(9), 0);
    }
}
