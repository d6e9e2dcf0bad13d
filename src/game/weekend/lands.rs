//! `Lands`: whose land each square of the map is, as the realm's place in `realms`,
//! four bytes a square by column and row (where the map's own square is 32). The
//! weekend keeps one for the state as the forms found it and one for its copy, made as
//! the map is copied and kept as step 3 redraws the borders (the one change the weekend
//! makes to whose land a square is), so the passive spy roll reads whose land each army
//! group stands on without a pass over the map or a read of the map's square.

use crate::game::state::GameState;
use crate::game::Square;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lands {
    height: usize,
    width: usize,
    /// By cell (`col * height + row - 1`); `NOBODY` for no realm's land.
    owner: Vec<u32>,
    /// Every square of the map has its cell (none lies outside width and height).
    whole: bool,
}

const NOBODY: u32 = u32::MAX;

impl Lands {
    /// For a map of `width` × `height` squares holding `squares` squares, no square
    /// noted yet. A valid map holds exactly its width times its height; a state that
    /// claims a far larger rectangle than it has squares (a hand-edited one) gets an
    /// empty list, and every look goes to the map, so its claim costs no memory.
    pub(crate) fn new(width: u16, height: u16, squares: usize) -> Lands {
        let (mut width, mut height) = (usize::from(width), usize::from(height));
        if width.saturating_mul(height) > squares.saturating_mul(2).saturating_add(1 << 16) {
            (width, height) = (0, 0);
        }
        Lands {
            height,
            width,
            owner: vec![NOBODY; width.saturating_mul(height)],
            whole: true,
        }
    }

    /// Read from the map of `gs`, in one pass over it in its order (the weekend notes
    /// its lands as it copies the map; test builds check them against this).
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn of(gs: &GameState) -> Lands {
        let map = &gs.map;
        let mut lands = Lands::new(map.width, map.height, map.squares.len());
        let mut runs = crate::game::state::OwnerRuns::default();
        for (sq, m) in &gs.map.squares {
            let k = m.owner.as_deref().and_then(|o| runs.place(gs, o));
            lands.note(sq, k);
        }
        lands
    }

    /// `sq` is the land of the realm at `place` (`None`: of no realm).
    pub(crate) fn note(&mut self, sq: Square, place: Option<usize>) {
        let Some(cell) = self.cell(sq) else {
            self.whole = false;
            return;
        };
        self.owner[cell] = place.and_then(|k| u32::try_from(k).ok()).unwrap_or(NOBODY);
    }

    fn cell(&self, sq: Square) -> Option<usize> {
        let (col, row) = (usize::from(sq.col()), usize::from(sq.row()));
        (col < self.width && row >= 1 && row <= self.height).then(|| col * self.height + row - 1)
    }

    /// Every square of the map is in the list (else the map must be read for those
    /// outside it).
    pub(crate) fn whole(&self) -> bool {
        self.whole
    }

    /// The place of the realm whose land `sq` is (`gs`: the state the list describes,
    /// read for a square outside the list).
    pub(crate) fn owner(&self, gs: &GameState, sq: Square) -> Option<usize> {
        match self.cell(sq) {
            Some(cell) => Some(self.owner[cell])
                .filter(|&k| k != NOBODY)
                .map(|k| k as usize),
            None => gs.realm_index(gs.map.get(sq)?.owner.as_deref()?),
        }
    }

    /// The squares in the list, in square order (column by column), with the place of
    /// the realm whose land each is.
    pub(crate) fn squares(&self) -> impl Iterator<Item = (Square, usize)> + '_ {
        let columns = self.owner.chunks(self.height.max(1)).enumerate();
        columns.flat_map(|(col, column)| {
            let col = u16::try_from(col).ok();
            // The column first: it ends the pairs, and no row past it is counted.
            let rows = column.iter().zip(1u16..);
            rows.filter(|&(&k, _)| k != NOBODY)
                .filter_map(move |(&k, row)| Some((Square::new(col?, row)?, k as usize)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> GameState {
        crate::game::load_scenario(include_str!("../../../scenarios/demo.yaml")).expect("demo")
    }

    /// Every square's owner read from the list is the map's, and the list walks the
    /// squares in the map's order.
    #[test]
    fn the_list_tells_each_squares_owner_as_the_map_does() {
        let gs = demo();
        let lands = Lands::of(&gs);
        assert!(lands.whole());
        let mut owned = 0;
        for (sq, m) in &gs.map.squares {
            let want = m.owner.as_deref().and_then(|o| gs.realm_index(o));
            assert_eq!(lands.owner(&gs, sq), want, "{sq}");
            owned += usize::from(want.is_some());
        }
        assert!(owned > 10, "{owned} squares owned");
        let listed: Vec<Square> = lands.squares().map(|(sq, _)| sq).collect();
        let on_map: Vec<Square> = gs
            .map
            .squares
            .iter()
            .filter(|(_, m)| m.owner.is_some())
            .map(|(sq, _)| sq)
            .collect();
        assert_eq!(listed, on_map);
    }

    /// A map that claims a rectangle of 3,600 million squares and holds the demo's few
    /// gets no list of that size: every look goes to the map, and still finds the owner.
    #[test]
    fn a_map_claiming_a_huge_rectangle_costs_no_memory_and_is_read_instead() {
        let mut gs = demo();
        (gs.map.width, gs.map.height) = (60_000, 60_000);
        let lands = Lands::of(&gs);
        assert!(lands.owner.is_empty());
        assert!(!lands.whole());
        let (sq, m) = gs
            .map
            .squares
            .iter()
            .find(|(_, m)| m.owner.is_some())
            .expect("an owned square");
        let want = gs.realm_index(m.owner.as_deref().expect("owned"));
        assert_eq!(lands.owner(&gs, sq), want);
    }
}
