//! What a game counts for, seat by seat: the results of one bot in the first
//! seat against another in the second. The standings (crosstable, points) and
//! the strength (ratings, layout pairs) both count games this way, so the
//! tally sits below both.

use pahtum::Seat;
use pahtum_record::GameRecord;

/// The games of one bot in the first seat against another in the second, from the first's side: what the
/// crosstable, the bots' lines and the ratings are made of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SeatResults {
    pub(crate) wins: u32,
    pub(crate) draws: u32,
    pub(crate) losses: u32,
}

impl SeatResults {
    /// Counts a game in which the first seat scored `half_points` (2 a win, 1 a draw, 0 a loss).
    pub(crate) fn add(&mut self, half_points: u8) {
        match half_points {
            2 => self.wins += 1,
            1 => self.draws += 1,
            _ => self.losses += 1,
        }
    }

    pub(crate) fn merge(&mut self, other: SeatResults) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }

    /// The games counted.
    pub(crate) fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The first seat's points, in half-points.
    pub(crate) fn first_half_points(&self) -> u64 {
        2 * u64::from(self.wins) + u64::from(self.draws)
    }

    /// The second seat's points, in half-points.
    pub(crate) fn second_half_points(&self) -> u64 {
        2 * u64::from(self.losses) + u64::from(self.draws)
    }
}

/// The points of the bot in `seat`, in half-points: 2 for a win, 1 for a draw, 0 for a loss.
pub(crate) fn half_points_of(record: &GameRecord, seat: Seat) -> u8 {
    // Exact: the points are 0, 1/2 or 1.
    (2.0 * record.points_of(seat)) as u8
}
