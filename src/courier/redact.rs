//! PURE removal of registered player addresses from text passed between realms, so a
//! signature or a quoted header cannot give a player's address away.
//!
//! Matching is case-insensitive for any Unicode text: every character is folded on its
//! own (upper case, then lower case, so `K` (Kelvin sign), `ſ` and `ß` fold like the
//! letters they stand for) while a map keeps, for each folded byte, the original
//! character it came from. A match that begins or ends inside a character's folding
//! removes that whole character. One fold of the text, then one linear search per
//! address: the time is linear in the text for a fixed game.
//!
//! Must not touch: files, the clock, the network, the database.

/// What replaces a removed address (both languages, since the text crosses realms).
pub const REMOVED: &str = "[adress borttagen / address removed]";

/// `text` with every occurrence of every address in `addresses` (any case) replaced by
/// [`REMOVED`]. Empty addresses are ignored.
pub fn redact<'a>(text: &str, addresses: impl IntoIterator<Item = &'a str>) -> String {
    // Only `@` itself folds to `@`: an address with one cannot occur in a text
    // without one (most texts), and the text is then not even folded.
    let has_at = text.contains('@');
    let mut folded: Option<Folded> = None;
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for a in addresses {
        let needle = fold(a);
        if needle.is_empty() || (!has_at && needle.contains('@')) {
            continue;
        }
        let folded = folded.get_or_insert_with(|| Folded::new(text));
        let mut from = 0;
        while let Some(pos) = folded.text[from..].find(&needle) {
            let (s, e) = (from + pos, from + pos + needle.len());
            spans.push(folded.span(s, e));
            from = e;
        }
    }
    if spans.is_empty() {
        return text.to_string();
    }
    replace_spans(text, spans)
}

/// `text` with the (possibly overlapping) byte ranges `spans` replaced by [`REMOVED`],
/// overlapping or touching ranges merged into one.
fn replace_spans(text: &str, mut spans: Vec<(usize, usize)>) -> String {
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut i = 0;
    while i < spans.len() {
        let (start, mut end) = spans[i];
        i += 1;
        while i < spans.len() && spans[i].0 <= end {
            end = end.max(spans[i].1);
            i += 1;
        }
        out.push_str(&text[at..start.max(at)]);
        out.push_str(REMOVED);
        at = at.max(end);
    }
    out.push_str(&text[at..]);
    out
}

/// The case fold of one character: upper case, then lower case.
fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    for u in c.to_uppercase() {
        out.extend(u.to_lowercase());
    }
}

/// The case fold of a whole string, character by character.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        fold_char(c, &mut out);
    }
    out
}

/// A folded text with, for each of its bytes, the byte range of the original
/// character it came from. When every character folds to one character of the same
/// length (nearly all text) the offsets agree and no map is kept.
struct Folded {
    text: String,
    origin: Option<Vec<(usize, usize)>>,
}

impl Folded {
    fn new(s: &str) -> Folded {
        let mut text = String::with_capacity(s.len());
        let mut same = true;
        let mut rest = s;
        while !rest.is_empty() {
            // A run of ASCII folds byte for byte, in place.
            let run = rest
                .bytes()
                .position(|b| !b.is_ascii())
                .unwrap_or(rest.len());
            let before = text.len();
            text.push_str(&rest[..run]);
            text[before..].make_ascii_lowercase();
            rest = &rest[run..];
            let Some(c) = rest.chars().next() else { break };
            let before = text.len();
            fold_char(c, &mut text);
            // One character of the same length: offsets (and boundaries) agree.
            same &= text.len() - before == c.len_utf8() && text[before..].chars().nth(1).is_none();
            rest = &rest[c.len_utf8()..];
        }
        if same {
            return Folded { text, origin: None };
        }
        let mut origin = Vec::with_capacity(text.len());
        let mut scratch = String::new();
        for (i, c) in s.char_indices() {
            scratch.clear();
            fold_char(c, &mut scratch);
            origin.resize(origin.len() + scratch.len(), (i, i + c.len_utf8()));
        }
        Folded {
            text,
            origin: Some(origin),
        }
    }

    /// The original byte range of the folded bytes `start..end`, widened to whole
    /// characters.
    fn span(&self, start: usize, end: usize) -> (usize, usize) {
        match &self.origin {
            None => (start, end),
            Some(o) => (o[start].0, o[end - 1].1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ADDR: &str = "ostvik@game.test";

    fn survives(out: &str, addr: &str) -> bool {
        fold(out).contains(&fold(addr))
    }

    /// What lets a text without `@` skip the fold: no other character folds to one.
    #[test]
    fn only_the_at_sign_folds_to_an_at_sign() {
        let mut out = String::new();
        for c in (0..=0x10FFFF_u32).filter_map(char::from_u32) {
            out.clear();
            fold_char(c, &mut out);
            assert_eq!(out.contains('@'), c == '@', "{c:?} folds to {out:?}");
        }
    }

    #[test]
    fn a_text_without_an_at_sign_is_kept_as_it_is() {
        let text = "Ostvik GAME.TEST hälsar, inga adresser här.";
        assert_eq!(redact(text, [ADDR]), text);
    }

    #[test]
    fn kelvin_signs_before_an_address_neither_panic_nor_leak() {
        let text = format!("{} {ADDR} end", "\u{212A}".repeat(40));
        let out = redact(&text, [ADDR]);
        assert!(!survives(&out, ADDR), "{out}");
        assert!(out.starts_with(&"\u{212A}".repeat(40)), "{out}");
        assert!(out.ends_with(&format!("{REMOVED} end")), "{out}");
    }

    #[test]
    fn dotted_capital_i_before_an_address_neither_panics_nor_leaks() {
        let text = format!("{} {ADDR} end", "\u{130}".repeat(40));
        let out = redact(&text, [ADDR]);
        assert!(!survives(&out, ADDR), "{out}");
        assert!(out.ends_with(&format!("{REMOVED} end")), "{out}");
    }

    #[test]
    fn dotted_capital_i_cannot_shift_an_address_out_of_reach() {
        let text = format!("{} {ADDR} {}", "\u{130}".repeat(16), "x".repeat(60));
        let out = redact(&text, [ADDR]);
        assert!(!out.contains(ADDR), "{out}");
        assert_eq!(out.matches(REMOVED).count(), 1, "{out}");
    }

    #[test]
    fn redaction_survives_case_changing_letters_inside_the_address() {
        // The Kelvin sign folds to `k`: a lookalike address is removed too.
        let text = "write to OSTVI\u{212A}@GAME.TEST now";
        let out = redact(text, [ADDR]);
        assert_eq!(out, format!("write to {REMOVED} now"));
    }

    #[test]
    fn every_registered_address_and_overlaps_are_removed() {
        let out = redact("a@b.c a@b.cc x@y.z", ["a@b.c", "a@b.cc", "", "x@y.z"]);
        assert_eq!(out, format!("{REMOVED} {REMOVED} {REMOVED}"));
    }

    #[test]
    fn text_without_addresses_is_unchanged() {
        let text = "Hälsningar från Ostvik — \u{130}\u{212A}ß";
        assert_eq!(redact(text, [ADDR]), text);
    }

    fn any_case(addr: &'static str) -> impl Strategy<Value = String> {
        proptest::collection::vec(any::<bool>(), addr.len()).prop_map(move |up| {
            addr.chars()
                .zip(up)
                .map(|(c, u)| if u { c.to_ascii_uppercase() } else { c })
                .collect()
        })
    }

    fn noise() -> impl Strategy<Value = String> {
        prop_oneof![
            ".{0,40}",
            "[\u{212A}\u{130}\u{1E9E}ßſİıΣςσ \n@.a-zA-Z]{0,40}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn no_registered_address_of_any_case_survives(
            parts in proptest::collection::vec((noise(), any_case(ADDR), any_case("b@x.se")), 0..5),
            tail in noise(),
        ) {
            let mut text = String::new();
            for (n, a, b) in &parts {
                text.push_str(n);
                text.push_str(a);
                text.push_str(b);
            }
            text.push_str(&tail);
            let out = redact(&text, [ADDR, "b@x.se"]);
            prop_assert!(!survives(&out, ADDR), "{out}");
            prop_assert!(!survives(&out, "b@x.se"), "{out}");
        }

        #[test]
        fn folding_in_ascii_runs_matches_folding_char_by_char(text in noise()) {
            let f = Folded::new(&text);
            prop_assert_eq!(&f.text, &fold(&text));
            // The map is left out exactly when every character keeps its length.
            let same = text.chars().all(|c| {
                let mut one = String::new();
                fold_char(c, &mut one);
                one.len() == c.len_utf8() && one.chars().count() == 1
            });
            prop_assert_eq!(f.origin.is_none(), same);
        }

        #[test]
        fn redaction_never_panics_on_any_text(text in ".{0,200}", addr in ".{0,12}") {
            let _ = redact(&text, [addr.as_str()]);
        }

        #[test]
        fn no_generated_address_survives_in_case_changing_text(
            text in "[\u{212A}\u{130}ßſıa-z@. ]{0,80}",
            addr in "[\u{212A}\u{130}ßſa-z]{1,4}@[a-z.]{1,4}",
        ) {
            let out = redact(&text, [addr.as_str()]);
            prop_assert!(!survives(&out, &addr), "{out}");
        }
    }
}
