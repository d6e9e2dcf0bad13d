//! `Squares`: the map's squares by square, kept in one array by column and row.
//!
//! A map is a full rectangle of squares (`GameState::validate` checks it), looked up
//! square by square all through the weekend: an array finds a square by arithmetic,
//! where a search tree reads a node at every level, each somewhere else in memory
//! on a large map. It reads and writes, iterates, compares and is stored exactly as
//! the ordered map of squares it replaced: in square order (column first, then row),
//! and stored as a map from square to square.
//!
//! The array grows to take any square inserted (doubling, so that filling it in any
//! order costs a copy of each square a few times at most); a map read from the store,
//! and the weekend's copy, are then fitted to the columns and rows their squares use. A square so far outside
//! the others that the array would be mostly empty (a stray square in a hand-edited
//! state) is kept aside in an ordered map instead, so a stray `ZZ9999` costs one
//! entry, not millions of empty cells.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::state::MapSquare;
use super::Square;

/// Empty cells the array may hold beyond `SLACK` times its squares.
const SPARE: usize = 1 << 16;
/// Cells the array may hold per square it holds (doubling leaves up to four).
const SLACK: usize = 16;

/// The map's squares (see the module's text).
#[derive(Clone, Default)]
pub struct Squares {
    /// Columns `0..cols` are in the array.
    cols: usize,
    /// Rows `1..=rows` are in the array.
    rows: usize,
    /// The square at column `c`, row `r` is `cells[c * rows + r - 1]`.
    cells: Vec<Option<MapSquare>>,
    /// Squares in the array.
    held: usize,
    /// Every square in the array is in columns `0..used_cols` and rows `1..=used_rows`
    /// (the array's growth by doubling leaves the rest empty).
    used_cols: usize,
    used_rows: usize,
    /// Squares kept aside: outside the array's columns and rows.
    aside: BTreeMap<Square, MapSquare>,
}

impl Squares {
    /// The cell of `sq` when the array covers it.
    fn cell(&self, sq: Square) -> Option<usize> {
        let (col, row) = (usize::from(sq.col()), usize::from(sq.row()));
        (col < self.cols && row >= 1 && row <= self.rows).then(|| col * self.rows + row - 1)
    }

    pub fn get(&self, sq: &Square) -> Option<&MapSquare> {
        match self.cell(*sq) {
            Some(c) => self.cells[c].as_ref(),
            None => self.aside.get(sq),
        }
    }

    pub fn get_mut(&mut self, sq: &Square) -> Option<&mut MapSquare> {
        match self.cell(*sq) {
            Some(c) => self.cells[c].as_mut(),
            None => self.aside.get_mut(sq),
        }
    }

    pub fn contains_key(&self, sq: &Square) -> bool {
        self.get(sq).is_some()
    }

    /// Put `m` on `sq`; the square it replaces, if any.
    pub fn insert(&mut self, sq: Square, m: MapSquare) -> Option<MapSquare> {
        if self.cell(sq).is_none() {
            self.grow_to(sq);
        }
        match self.cell(sq) {
            Some(c) => {
                let old = self.cells[c].replace(m);
                if old.is_none() {
                    self.held += 1;
                    self.used(sq);
                }
                old
            }
            None => self.aside.insert(sq, m),
        }
    }

    /// Note that the array holds `sq`.
    fn used(&mut self, sq: Square) {
        self.used_cols = self.used_cols.max(usize::from(sq.col()) + 1);
        self.used_rows = self.used_rows.max(usize::from(sq.row()));
    }

    /// Make the array no larger than its squares need: the columns and rows up to the
    /// last one holding a square. A map read square by square grows its array by
    /// doubling, which can leave three empty cells for each square; every pass over the
    /// squares reads those too.
    pub fn fit(&mut self) {
        if (self.used_cols, self.used_rows) == (self.cols, self.rows) {
            return;
        }
        let mut cells = Vec::with_capacity(self.used_cols * self.used_rows);
        for column in self.cells.chunks_mut(self.rows.max(1)).take(self.used_cols) {
            cells.extend(column[..self.used_rows].iter_mut().map(Option::take));
        }
        (self.cols, self.rows, self.cells) = (self.used_cols, self.used_rows, cells);
    }

    /// Widen the array to cover `sq` when that keeps it mostly full; else leave it.
    fn grow_to(&mut self, sq: Square) {
        let (col, row) = (usize::from(sq.col()), usize::from(sq.row()));
        let grown = |have: usize, need: usize| {
            if need <= have {
                have
            } else {
                need.max(have.saturating_mul(2))
            }
        };
        let squares = self.len() + 1;
        let budget = squares.saturating_mul(SLACK).saturating_add(SPARE);
        let fits = |c: usize, r: usize| c.checked_mul(r).is_some_and(|n| n <= budget);
        let (mut cols, mut rows) = (grown(self.cols, col + 1), grown(self.rows, row));
        if !fits(cols, rows) {
            // Without the doubling, if that fits.
            (cols, rows) = (self.cols.max(col + 1), self.rows.max(row));
            if !fits(cols, rows) {
                return;
            }
        }
        let mut cells = Vec::new();
        cells.resize_with(cols * rows, || None);
        for (c, column) in self.cells.chunks_mut(self.rows.max(1)).enumerate() {
            for (r, cell) in column.iter_mut().enumerate() {
                cells[c * rows + r] = cell.take();
            }
        }
        (self.cols, self.rows, self.cells) = (cols, rows, cells);
        // Squares kept aside that the array now covers move into it.
        let covered: Vec<Square> = self
            .aside
            .keys()
            .copied()
            .filter(|s| self.cell(*s).is_some())
            .collect();
        for s in covered {
            if let (Some(m), Some(c)) = (self.aside.remove(&s), self.cell(s)) {
                self.cells[c] = Some(m);
                self.held += 1;
                self.used(s);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.held + self.aside.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The squares in square order (column first, then row).
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            grid: self,
            next: 0,
            aside: self.aside.iter().peekable(),
        }
    }

    pub fn keys(&self) -> impl Iterator<Item = Square> + '_ {
        self.iter().map(|(sq, _)| sq)
    }

    pub fn values(&self) -> impl Iterator<Item = &MapSquare> + '_ {
        self.iter().map(|(_, m)| m)
    }

    /// Every square to change, in no promised order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut MapSquare> + '_ {
        self.cells
            .iter_mut()
            .filter_map(Option::as_mut)
            .chain(self.aside.values_mut())
    }

    /// A copy in which `f` has changed every square, told which square it is (as
    /// `clone` and then a pass over the copy, in one pass over the squares instead of
    /// two). The array's squares come in square order, then those kept aside. The
    /// copy's array is fitted (see `fit`): it holds no column or row the squares leave
    /// empty.
    pub fn clone_with(&self, mut f: impl FnMut(Square, &mut MapSquare)) -> Squares {
        let mut copy = |sq: Square, m: &MapSquare| {
            let mut m = m.clone();
            f(sq, &mut m);
            m
        };
        let (cols, rows) = (self.used_cols, self.used_rows);
        let mut cells = Vec::with_capacity(cols * rows);
        // Column by column, row by row: the order of the cells, with no division to
        // find a cell's square.
        for (col, column) in self.cells.chunks(self.rows.max(1)).take(cols).enumerate() {
            for (row, cell) in (1..).zip(&column[..rows]) {
                let sq = u16::try_from(col)
                    .ok()
                    .zip(u16::try_from(row).ok())
                    .and_then(|(c, r)| Square::new(c, r));
                cells.push(match (cell, sq) {
                    (Some(m), Some(sq)) => Some(copy(sq, m)),
                    (m, _) => m.clone(),
                });
            }
        }
        Squares {
            cols,
            rows,
            cells,
            held: self.held,
            used_cols: cols,
            used_rows: rows,
            aside: self
                .aside
                .iter()
                .map(|(sq, m)| (*sq, copy(*sq, m)))
                .collect(),
        }
    }

    /// The square of `cells[c]`.
    fn square_of(&self, c: usize) -> Option<Square> {
        let (col, row) = (c / self.rows, c % self.rows + 1);
        Square::new(u16::try_from(col).ok()?, u16::try_from(row).ok()?)
    }
}

/// The squares in order: the array's merged with those kept aside.
pub struct Iter<'a> {
    grid: &'a Squares,
    /// The next cell of the array to look at.
    next: usize,
    aside: std::iter::Peekable<std::collections::btree_map::Iter<'a, Square, MapSquare>>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (Square, &'a MapSquare);

    fn next(&mut self) -> Option<Self::Item> {
        let cells = &self.grid.cells;
        while self.next < cells.len() && cells[self.next].is_none() {
            self.next += 1;
        }
        let from_grid = cells
            .get(self.next)
            .and_then(Option::as_ref)
            .and_then(|m| Some((self.grid.square_of(self.next)?, m)));
        match (from_grid, self.aside.peek()) {
            (Some((sq, m)), Some((aside, _))) if sq < **aside => {
                self.next += 1;
                Some((sq, m))
            }
            (Some((sq, m)), None) => {
                self.next += 1;
                Some((sq, m))
            }
            _ => self.aside.next().map(|(sq, m)| (*sq, m)),
        }
    }
}

impl<'a> IntoIterator for &'a Squares {
    type Item = (Square, &'a MapSquare);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl Extend<(Square, MapSquare)> for Squares {
    fn extend<I: IntoIterator<Item = (Square, MapSquare)>>(&mut self, squares: I) {
        for (sq, m) in squares {
            self.insert(sq, m);
        }
    }
}

impl FromIterator<(Square, MapSquare)> for Squares {
    fn from_iter<I: IntoIterator<Item = (Square, MapSquare)>>(squares: I) -> Self {
        let mut out = Squares::default();
        out.extend(squares);
        out.fit();
        out
    }
}

/// Equal when they hold the same squares, however the arrays were grown.
impl PartialEq for Squares {
    fn eq(&self, other: &Squares) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Squares {}

impl fmt::Debug for Squares {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Squares {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Squares {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Read;
        impl<'de> Visitor<'de> for Read {
            type Value = Squares;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the map's squares by square")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Squares, A::Error> {
                let mut out = Squares::default();
                while let Some((sq, m)) = map.next_entry::<Square, MapSquare>()? {
                    out.insert(sq, m);
                }
                out.fit();
                Ok(out)
            }
        }
        d.deserialize_map(Read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn square(owner: Option<&str>) -> MapSquare {
        MapSquare::land(owner)
    }

    fn sq(col: u16, row: u16) -> Square {
        Square::new(col, row).expect("square")
    }

    #[test]
    fn a_stray_far_square_is_kept_aside_not_in_millions_of_cells() {
        let mut g = Squares::default();
        g.insert(sq(0, 1), square(None));
        g.insert(sq(701, 9999), square(Some("Alfa")));
        assert!(g.cells.len() < 100, "{} cells", g.cells.len());
        assert_eq!(g.len(), 2);
        assert_eq!(
            g.get(&sq(701, 9999)).and_then(|m| m.owner.as_deref()),
            Some("Alfa")
        );
        let order: Vec<Square> = g.keys().collect();
        assert_eq!(order, [sq(0, 1), sq(701, 9999)]);
    }

    #[test]
    fn a_full_map_is_held_in_the_array() {
        let g: Squares = (0..20)
            .flat_map(|c| (1..=12).map(move |r| (sq(c, r), square(None))))
            .collect();
        assert_eq!(g.len(), 240);
        assert!(g.aside.is_empty());
        assert_eq!(g.cells.len(), g.cols * g.rows);
    }

    /// 20 columns of 33 rows, put in one by one in square order (as a stored map is
    /// read): the array doubles to 32 columns of 64 rows on the way.
    fn grown_map() -> Squares {
        let mut g = Squares::default();
        for c in 0..20 {
            for r in 1..=33 {
                g.insert(sq(c, r), square((c % 2 == 0).then_some("Alfa")));
            }
        }
        g
    }

    #[test]
    fn a_map_read_from_the_store_holds_no_empty_column_or_row() {
        let grown = grown_map();
        assert_eq!(
            grown.cells.len(),
            32 * 64,
            "the doubling this test is about"
        );
        let read: Squares =
            serde_json::from_str(&serde_json::to_string(&grown).expect("json")).expect("read");
        assert_eq!((read.cols, read.rows, read.cells.len()), (20, 33, 660));
        assert!(read == grown);
        let collected: Squares = grown.iter().map(|(s, m)| (s, m.clone())).collect();
        assert_eq!(collected.cells.len(), 660);
    }

    #[test]
    fn the_weekends_copy_of_a_grown_map_holds_no_empty_column_or_row() {
        let grown = grown_map();
        let copy = grown.clone_with(|_, _| {});
        assert_eq!((copy.cols, copy.rows, copy.cells.len()), (20, 33, 660));
        assert!(copy == grown);
        let mut fitted = grown.clone();
        fitted.fit();
        assert_eq!(fitted.cells.len(), 660);
        assert!(fitted == grown);
    }

    proptest! {
        /// Inserted in any order, the squares read, iterate, compare and are stored
        /// as the ordered map of squares does.
        #[test]
        fn squares_behave_as_the_ordered_map(
            puts in prop::collection::vec(((0u16..40, 1u16..30), any::<bool>()), 0..200),
            strays in prop::collection::vec(((0u16..702, 1u16..10000), any::<bool>()), 0..4),
            looks in prop::collection::vec((0u16..50, 0u16..40), 0..50),
            later in prop::collection::vec(((0u16..60, 1u16..50), any::<bool>()), 0..40),
        ) {
            let mut g = Squares::default();
            let mut b: BTreeMap<Square, MapSquare> = BTreeMap::new();
            for ((c, r), owned) in puts.into_iter().chain(strays) {
                let m = square(owned.then_some("Alfa"));
                prop_assert_eq!(g.insert(sq(c, r), m.clone()), b.insert(sq(c, r), m));
                prop_assert_eq!(g.len(), b.len());
            }
            for (c, r) in looks {
                if let Some(s) = Square::new(c, r) {
                    prop_assert_eq!(g.get(&s), b.get(&s));
                    prop_assert_eq!(g.contains_key(&s), b.contains_key(&s));
                }
            }
            let mine: Vec<(Square, &MapSquare)> = g.iter().collect();
            let theirs: Vec<(Square, &MapSquare)> = b.iter().map(|(s, m)| (*s, m)).collect();
            prop_assert_eq!(&mine, &theirs);
            let stored = serde_json::to_string(&g).expect("json");
            prop_assert_eq!(&stored, &serde_json::to_string(&b).expect("json"));
            let mut back: Squares = serde_json::from_str(&stored).expect("read");
            prop_assert!(back == g);
            // The fitted array (read back) and the copy take new squares as the map does.
            let mut copy = g.clone_with(|_, _| {});
            let mut more = b.clone();
            for ((c, r), owned) in later {
                let m = square(owned.then_some("Beta"));
                let was = more.insert(sq(c, r), m.clone());
                prop_assert_eq!(back.insert(sq(c, r), m.clone()), was.clone());
                prop_assert_eq!(copy.insert(sq(c, r), m), was);
            }
            let more: Squares = more.into_iter().collect();
            prop_assert!(back == more);
            prop_assert!(copy == more);
            let rebuilt: Squares = b.into_iter().rev().collect();
            prop_assert!(rebuilt == g, "equal whatever the order of insertion");
        }

        /// `clone_with` shows every square once, told its own square (those in the
        /// array and those kept aside), and its copy is the squares with the change made.
        #[test]
        fn a_copy_with_a_change_tells_each_square_once_with_its_own_square(
            puts in prop::collection::vec(((0u16..40, 1u16..30), any::<bool>()), 0..200),
            strays in prop::collection::vec(((0u16..702, 1u16..10000), any::<bool>()), 0..4),
        ) {
            let mut b: BTreeMap<Square, MapSquare> = BTreeMap::new();
            for ((c, r), owned) in puts.into_iter().chain(strays) {
                b.insert(sq(c, r), square(owned.then_some("Alfa")));
            }
            let g: Squares = b.clone().into_iter().collect();
            let mut told = Vec::new();
            let copy = g.clone_with(|s, m| {
                told.push((s, m.clone()));
                m.treasure = m.owner.is_some();
            });
            told.sort_by_key(|(s, _)| *s);
            let all: Vec<(Square, MapSquare)> = b.clone().into_iter().collect();
            prop_assert_eq!(told, all);
            for m in b.values_mut() {
                m.treasure = m.owner.is_some();
            }
            let changed: Squares = b.into_iter().collect();
            prop_assert!(copy == changed);
            prop_assert_eq!(copy.len(), g.len());
        }
    }
}
