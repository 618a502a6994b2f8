//! The bots of a tournament by index, for the tables that count per bot and per pair of bots.
//!
//! The standings and the strength both count games into per-bot arrays and per-pair tables; this roster
//! gives them the same indices: the bot list first (so that a bot without a game still has a row), then any
//! name found only in the records, in the order met. The order met depends on the order the records come
//! in (and on how pieces of a journal counted apart were merged), so the tables are put in a
//! [canonical order](Roster::canonical_order) before anything is computed from them: the bot list, then
//! the other names sorted.

use std::collections::HashMap;

/// The bots by index: the bot list first, then names found only in records.
#[derive(Debug, Clone)]
pub(crate) struct Roster {
    /// The names by index.
    pub(crate) names: Vec<String>,
    index: HashMap<String, usize>,
    /// How many of the names come from the bot list (they come first).
    listed: usize,
}

impl Roster {
    pub(crate) fn new(bots: &[String]) -> Roster {
        let mut roster = Roster {
            names: Vec::new(),
            index: HashMap::new(),
            listed: 0,
        };
        for bot in bots {
            roster.slot(bot);
        }
        roster.listed = roster.names.len();
        roster
    }

    /// The index of `name`, added at the end if it is new.
    pub(crate) fn slot(&mut self, name: &str) -> usize {
        if let Some(&index) = self.index.get(name) {
            return index;
        }
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), self.names.len() - 1);
        self.names.len() - 1
    }

    /// The indices in the order the tables are computed in: the bot list, then the names found only in
    /// records, sorted, so that it does not depend on the order the records came in.
    pub(crate) fn canonical_order(&self) -> Vec<usize> {
        let mut found: Vec<usize> = (self.listed..self.names.len()).collect();
        found.sort_by(|&i, &j| self.names[i].cmp(&self.names[j]));
        (0..self.listed).chain(found).collect()
    }
}

/// A cell for every ordered pair of bots, by roster index, in a table that grows with the roster: its size
/// is the square of the number of bots, whatever the number of games.
#[derive(Debug, Clone)]
pub(crate) struct PerPair<T> {
    size: usize,
    /// The bots a row has room for, `size` or more: a table grown a bot at a time (as a journal's
    /// records name them) doubles its room, so that its cells move a few times, not once a bot.
    room: usize,
    cells: Vec<T>,
}

impl<T: Default> PerPair<T> {
    /// A table of default cells for `size` bots.
    pub(crate) fn new(size: usize) -> PerPair<T> {
        PerPair::with_room(size, size)
    }

    fn with_room(size: usize, room: usize) -> PerPair<T> {
        PerPair {
            size,
            room,
            cells: std::iter::repeat_with(T::default).take(room * room).collect(),
        }
    }

    /// Makes room for `size` bots, keeping every cell under its pair.
    pub(crate) fn grow(&mut self, size: usize) {
        if size <= self.room {
            self.size = self.size.max(size);
            return;
        }
        let mut grown = PerPair::with_room(size, size.max(2 * self.room));
        for (row, column, cell) in std::mem::replace(self, PerPair::new(0)).into_cells() {
            *grown.get_mut(row, column) = cell;
        }
        *self = grown;
    }

    /// The cell of `row` against `column`.
    pub(crate) fn get(&self, row: usize, column: usize) -> &T {
        &self.cells[row * self.room + column]
    }

    /// The cell of `row` against `column`, to change.
    pub(crate) fn get_mut(&mut self, row: usize, column: usize) -> &mut T {
        &mut self.cells[row * self.room + column]
    }

    /// Every cell with its row and column.
    pub(crate) fn into_cells(self) -> impl Iterator<Item = (usize, usize, T)> {
        let PerPair { size, room, cells } = self;
        cells
            .into_iter()
            .enumerate()
            .map(move |(at, cell)| (at / room, at % room, cell))
            .filter(move |&(row, column, _)| row < size && column < size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_bots_come_first_and_found_names_sorted_after_them() {
        let mut roster = Roster::new(&["b".to_owned(), "a".to_owned(), "b".to_owned()]);
        assert_eq!(roster.names, ["b", "a"], "a name listed twice has one slot");
        assert_eq!(roster.slot("zed"), 2);
        assert_eq!(roster.slot("ghost"), 3);
        assert_eq!(roster.slot("a"), 1);
        assert_eq!(roster.canonical_order(), [0, 1, 3, 2]);
    }

    #[test]
    fn a_growing_table_keeps_its_cells() {
        let mut table: PerPair<u32> = PerPair::new(2);
        *table.get_mut(0, 1) = 7;
        *table.get_mut(1, 1) = 9;
        table.grow(3);
        assert_eq!((*table.get(0, 1), *table.get(1, 1), *table.get(2, 0)), (7, 9, 0));
        let cells: Vec<_> = table.into_cells().filter(|&(_, _, cell)| cell > 0).collect();
        assert_eq!(cells, [(0, 1, 7), (1, 1, 9)]);
    }

    /// Grown a bot at a time, as a league's journal names its entrants, a table moves its cells a few times
    /// only, keeps every one under its pair, and has only its bots' cells.
    #[test]
    fn a_table_grown_a_bot_at_a_time_moves_its_cells_a_few_times() {
        let mut table: PerPair<usize> = PerPair::new(0);
        let mut moves = 0;
        for size in 1..=200 {
            let before = table.cells.as_ptr();
            table.grow(size);
            moves += usize::from(table.cells.as_ptr() != before);
            *table.get_mut(size - 1, size / 2) = size;
        }
        assert!(moves <= 10, "{moves} moves");
        let cells: Vec<_> = table.into_cells().collect();
        assert_eq!(cells.len(), 200 * 200);
        let set: Vec<_> = cells.into_iter().filter(|&(_, _, cell)| cell > 0).collect();
        assert_eq!(
            set,
            (1..=200).map(|size| (size - 1, size / 2, size)).collect::<Vec<_>>()
        );
    }
}
