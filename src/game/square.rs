//! `Square`: a map coordinate such as `A1` or `Q35` (letters = column,
//! number = row). Parsed once at the edge; stored and shown as text.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A map square. Ordered column first, then row (`A1 < A2 < A10 < B1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    /// 0-based column (`A` = 0, `Z` = 25, `AA` = 26 …).
    col: u16,
    /// 1-based row.
    row: u16,
}

/// Why a square name was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{input}` is not a square; write a column letter and a row number, e.g. A1 or K12")]
pub struct ParseSquareError {
    pub input: String,
}

impl Square {
    /// From a 0-based column and a 1-based row. `None` for row 0 or a
    /// column beyond `ZZ`.
    pub fn new(col: u16, row: u16) -> Option<Square> {
        (row >= 1 && col < 26 * 27).then_some(Square { col, row })
    }

    /// Parse `A1`, `k12`, `AB3`; surrounding whitespace is ignored.
    pub fn parse(input: &str) -> Result<Square, ParseSquareError> {
        let err = || ParseSquareError {
            input: input.to_string(),
        };
        let s = input.trim();
        let split = s.find(|c: char| c.is_ascii_digit()).ok_or_else(err)?;
        let (letters, digits) = s.split_at(split);
        if letters.is_empty()
            || letters.len() > 2
            || !letters.chars().all(|c| c.is_ascii_alphabetic())
            || digits.is_empty()
            || !digits.chars().all(|c| c.is_ascii_digit())
            || digits.len() > 4
        {
            return Err(err());
        }
        let mut col: u16 = 0;
        for c in letters.chars() {
            col = col * 26 + (c.to_ascii_uppercase() as u16 - b'A' as u16 + 1);
        }
        let row: u16 = digits.parse().map_err(|_| err())?;
        Square::new(col - 1, row).ok_or_else(err)
    }

    pub fn col(self) -> u16 {
        self.col
    }

    pub fn row(self) -> u16 {
        self.row
    }

    /// Squares sharing an edge (4) or also a corner (8), within a
    /// `width × height` grid.
    pub fn neighbours(self, width: u16, height: u16, diagonal: bool) -> Vec<Square> {
        let mut out = Vec::new();
        for dc in -1i32..=1 {
            for dr in -1i32..=1 {
                if (dc == 0 && dr == 0) || (!diagonal && dc != 0 && dr != 0) {
                    continue;
                }
                let c = self.col as i32 + dc;
                let r = self.row as i32 + dr;
                if c >= 0 && c < width as i32 && r >= 1 && r <= height as i32 {
                    out.push(Square {
                        col: c as u16,
                        row: r as u16,
                    });
                }
            }
        }
        out
    }

    /// `other` is one of `neighbours(width, height, diagonal)`: the same answer, with
    /// no list made (a move asks this at every step).
    pub fn touches(self, other: Square, width: u16, height: u16, diagonal: bool) -> bool {
        let (dc, dr) = (self.col.abs_diff(other.col), self.row.abs_diff(other.row));
        let next = match diagonal {
            true => dc.max(dr) == 1,
            false => dc + dr == 1,
        };
        next && other.col < width && other.row >= 1 && other.row <= height
    }

    /// King-move (Chebyshev) distance (RULINGS 58).
    pub fn distance(self, other: Square) -> u16 {
        self.col
            .abs_diff(other.col)
            .max(self.row.abs_diff(other.row))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.col >= 26 {
            let first = (b'A' + (self.col / 26 - 1) as u8) as char;
            let second = (b'A' + (self.col % 26) as u8) as char;
            write!(f, "{first}{second}{}", self.row)
        } else {
            write!(f, "{}{}", (b'A' + self.col as u8) as char, self.row)
        }
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Square::parse(s)
    }
}

impl Serialize for Square {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Square::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display_round_trip() {
        for s in ["A1", "L12", "Q35", "Z9", "AA1", "AB17"] {
            assert_eq!(Square::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(Square::parse(" k12 ").unwrap().to_string(), "K12");
        for bad in ["", "1A", "A", "A0", "Å1", "ABC1", "A1x", "A-1"] {
            assert!(Square::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ordering_and_neighbours() {
        let a1 = Square::parse("A1").unwrap();
        let a2 = Square::parse("A2").unwrap();
        let b1 = Square::parse("B1").unwrap();
        assert!(a1 < a2 && a2 < b1);
        assert_eq!(a1.neighbours(12, 12, false).len(), 2);
        assert_eq!(a1.neighbours(12, 12, true).len(), 3);
        assert_eq!(a1.distance(Square::parse("C2").unwrap()), 2);
    }

    #[test]
    fn serde_as_text() {
        let s = Square::parse("C7").unwrap();
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"C7\"");
        let back: Square = serde_json::from_str("\"C7\"").unwrap();
        assert_eq!(back, s);
        assert!(serde_json::from_str::<Square>("\"7C\"").is_err());
    }

    proptest::proptest! {
        #[test]
        fn a_square_touches_exactly_its_neighbours(
            a in (0u16..9, 0u16..9),
            b in (0u16..9, 0u16..9),
            (w, h) in (1u16..8, 1u16..8),
            diagonal in proptest::bool::ANY,
        ) {
            let (a, b) = (Square { col: a.0, row: a.1 }, Square { col: b.0, row: b.1 });
            proptest::prop_assert_eq!(
                a.touches(b, w, h, diagonal),
                a.neighbours(w, h, diagonal).contains(&b)
            );
        }
    }
}
