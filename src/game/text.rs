//! Plain text helpers every room shares: the one name folding used to
//! match realm, city, unit and keyword names, the kinds of mail a subject
//! names, and word wrapping for the forms. Pure.

use unicode_normalization::{char::is_combining_mark, UnicodeNormalization};

/// Width of the form; no line may be longer (docs/reference/orders.md).
pub const WIDTH: usize = 78;

/// What a mail is, as its subject says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MailKind {
    Envoy,
    Merchant,
    Spy,
    Form,
    ToGm,
}

/// Folds a name or phrase for comparison: lower-case, diacritics stripped
/// (NFD, combining marks dropped; `ø` and `æ` read as `o` and `ae`),
/// whitespace collapsed to single spaces and trimmed. `Östvik`, `OSTVIK`
/// and a decomposed `Östvik ` all fold to `ostvik`.
pub fn fold(s: &str) -> String {
    if s.is_ascii() {
        return fold_ascii(s);
    }
    fold_unicode(s)
}

/// [`fold`] of ASCII text (most subjects' words and realm names; every subject and every
/// realm name of the directory is folded for each mail read): lower-cased, white space
/// collapsed to single spaces and trimmed, which is all the decomposition does to ASCII
/// (`ascii_fold_is_the_full_fold` proves it).
fn fold_ascii(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(char::is_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().map(|c| c.to_ascii_lowercase()));
    }
    out
}

fn fold_unicode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars().flat_map(char::to_lowercase).nfd() {
        if is_combining_mark(c) {
            continue;
        }
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        match c {
            'ø' => out.push('o'),
            'æ' => out.push_str("ae"),
            other => out.push(other),
        }
    }
    out
}

/// Word-wrap `text` into lines of at most `width` characters, each
/// prefixed by `indent` spaces. A word longer than the room is split.
pub fn wrap(text: &str, width: usize, indent: usize) -> Vec<String> {
    wrap_words(text.split_whitespace(), width, indent)
}

/// [`wrap`] of words already split (none empty, none with white space in it).
fn wrap_words<'a>(
    words: impl Iterator<Item = &'a str>,
    width: usize,
    indent: usize,
) -> Vec<String> {
    let room = width.saturating_sub(indent).max(10);
    let pad = " ".repeat(indent);
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    for word in words {
        let wlen = word.chars().count();
        let need = if cur_len == 0 {
            wlen
        } else {
            cur_len + 1 + wlen
        };
        if need <= room {
            if cur_len > 0 {
                cur.push(' ');
            }
            cur.push_str(word);
            cur_len = need;
            continue;
        }
        if cur_len > 0 {
            lines.push(format!("{pad}{cur}"));
            cur.clear();
        }
        if wlen <= room {
            cur.push_str(word);
            cur_len = wlen;
            continue;
        }
        // A single word longer than the room: hard split, in one pass over it.
        let mut start = 0;
        for (n, (i, _)) in word.char_indices().enumerate() {
            if n > 0 && n % room == 0 {
                lines.push(format!("{pad}{}", &word[start..i]));
                start = i;
            }
        }
        cur.push_str(&word[start..]);
        cur_len = word[start..].chars().count();
    }
    if cur_len > 0 {
        lines.push(format!("{pad}{cur}"));
    }
    lines
}

/// `s` with its first letter upper-case (`åtta` → `Åtta`).
pub fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Comma-separated `items` in lines of at most `width` characters, each
/// indented; an item is never split across lines.
pub fn wrap_items(items: &[String], width: usize, indent: usize) -> Vec<String> {
    let pad = " ".repeat(indent);
    let mut lines = Vec::new();
    let mut cur = String::new();
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() {
            format!("{item},")
        } else {
            item.clone()
        };
        let len = pad.chars().count() + cur.chars().count() + 1 + piece.chars().count();
        if !cur.is_empty() && len > width {
            lines.push(format!("{pad}{cur}"));
            cur.clear();
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(&piece);
    }
    if !cur.is_empty() {
        lines.push(format!("{pad}{cur}"));
    }
    lines
}

/// Word-wrap with a hanging indent: the first line starts at column 0,
/// the rest after `indent` spaces. Existing line breaks are kept.
pub fn wrap_hanging(text: &str, width: usize, indent: usize) -> Vec<String> {
    let mut out = Vec::new();
    for para in text.split('\n') {
        let lead = para.len() - para.trim_start().len();
        // A paragraph that fits one line of the full width as written, its leading
        // spaces and its inner spacing counted, is kept as written; deciding so counts
        // at most a line's characters, it does not wrap it whole (a form's list of
        // every realm is a long paragraph).
        let kept = para.trim();
        let room = width.max(10).saturating_sub(lead);
        if kept.chars().take(room + 1).count() <= room {
            out.push(format!("{}{kept}", " ".repeat(lead)));
            continue;
        }
        // Re-wrap: first line at full width, the rest indented.
        let mut words = para.split_whitespace().peekable();
        let mut line = " ".repeat(lead);
        let mut line_len = lead;
        let mut has_word = false;
        while let Some(w) = words.peek() {
            let w_len = w.chars().count();
            let len = line_len + usize::from(has_word) + w_len;
            if len <= width || !has_word {
                if has_word {
                    line.push(' ');
                }
                line.push_str(w);
                line_len = len;
                has_word = true;
                words.next();
            } else {
                break;
            }
        }
        out.push(line);
        out.extend(wrap_words(words, width, indent));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_fold_is_the_full_fold() {
        for s in [
            "",
            " ",
            "Nya  Ostvik ",
            "\x0bA\x0cB\rC\n",
            "Stora Öar",
            "ÆØ x",
        ] {
            assert_eq!(fold(s), fold_unicode(s), "{s:?}");
        }
        proptest::proptest!(|(s in "[\\x00-\\x7f]{0,24}|[ -~éÖø\u{3000}\u{85}]{0,12}")| {
            proptest::prop_assert_eq!(fold(&s), fold_unicode(&s));
        });
    }

    #[test]
    fn fold_strips_case_diacritics_and_extra_space() {
        assert_eq!(fold("  ÖSTVIK \t skickar  "), "ostvik skickar");
        assert_eq!(fold("Sändebud"), "sandebud");
        assert_eq!(fold("Å ä Ö é ø"), "a a o e o");
        assert_eq!(fold("O\u{308}stvik "), "ostvik");
        assert_eq!(fold(""), "");
    }

    #[test]
    fn a_line_with_leading_spaces_wraps_at_the_width_with_them_counted() {
        // 6 spaces and 78 characters of words: 84 in all, over the width of 78.
        let text = format!("      kostar {}", "12 mat, ".repeat(9).trim_end());
        assert!(text.trim().chars().count() <= 78 && text.chars().count() > 78);
        let lines = wrap_hanging(&text, 78, 8);
        assert!(lines.len() == 2, "{lines:?}");
        assert!(lines.iter().all(|l| l.chars().count() <= 78), "{lines:?}");
        assert!(lines[0].starts_with("      kostar") && lines[1].starts_with("        "));
        // Inner spacing counts too.
        let table = format!("a{}b", " ".repeat(80));
        assert!(wrap_hanging(&table, 78, 0)
            .iter()
            .all(|l| l.chars().count() <= 78));
        // What fits stays as written.
        assert_eq!(wrap_hanging("  x   y", 78, 4), vec!["  x   y".to_string()]);
    }

    #[test]
    fn wrap_respects_width_and_indent() {
        let text = "ord ".repeat(60);
        let lines = wrap(&text, 30, 2);
        assert!(lines
            .iter()
            .all(|l| l.chars().count() <= 30 && l.starts_with("  ")));
        let long = "x".repeat(100);
        let lines = wrap(&long, 30, 0);
        assert_eq!(lines.len(), 4);
        assert!(wrap("", 30, 2).is_empty());
    }

    #[test]
    fn a_huge_word_is_split_into_pieces_that_join_back() {
        let word = "åx".repeat(100_000);
        let text = format!("a {word} b");
        let lines = wrap(&text, 72, 2);
        assert!(
            lines.iter().all(|l| l.chars().count() <= 72),
            "{:?}",
            &lines[..2]
        );
        let joined: String = lines
            .iter()
            .map(|l| l.trim_start())
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(joined.replace(' ', ""), format!("a{word}b"));
    }

    #[test]
    fn items_stay_whole() {
        let items: Vec<String> = (0..20).map(|i| format!("{i} lätt infanteri")).collect();
        let lines = wrap_items(&items, 40, 4);
        assert!(lines.iter().all(|l| l.chars().count() <= 40));
        assert!(lines.iter().all(|l| !l.trim_end().ends_with(" lätt")));
        assert_eq!(lines.concat().matches("infanteri").count(), 20);
    }

    /// The hanging wrap as it was first written: a paragraph that fits one line as
    /// written (its leading spaces counted) kept, else the first line filled and the
    /// rest joined again and wrapped.
    fn hanging_wrap_as_first_written(text: &str, width: usize, indent: usize) -> Vec<String> {
        let mut out = Vec::new();
        for para in text.split('\n') {
            let lead = para.len() - para.trim_start().len();
            if lead + para.trim().chars().count() <= width.max(10) {
                out.push(format!("{}{}", " ".repeat(lead), para.trim()));
                continue;
            }
            let mut words = para.split_whitespace().peekable();
            let mut line = " ".repeat(lead);
            let mut has_word = false;
            while let Some(w) = words.peek() {
                let len = line.chars().count() + usize::from(has_word) + w.chars().count();
                if len <= width || !has_word {
                    if has_word {
                        line.push(' ');
                    }
                    line.push_str(w);
                    has_word = true;
                    words.next();
                } else {
                    break;
                }
            }
            out.push(line);
            let rest: Vec<&str> = words.collect();
            out.extend(wrap(&rest.join(" "), width, indent));
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn the_one_pass_hanging_wrap_gives_the_lines_the_two_pass_one_gave(
            text in "[ a-zåäöÅ,\n]{0,300}|( ?[a-zö]{1,30}[ \n]{1,3}){0,40}",
            width in 0usize..90,
            indent in 0usize..12,
        ) {
            proptest::prop_assert_eq!(
                wrap_hanging(&text, width, indent),
                hanging_wrap_as_first_written(&text, width, indent)
            );
        }
    }

    #[test]
    fn hanging_wrap() {
        let text = format!("Vänner: {}", "Genogien, ".repeat(12));
        let lines = wrap_hanging(&text, 40, 2);
        assert!(lines[0].starts_with("Vänner:"));
        assert!(lines[1..]
            .iter()
            .all(|l| l.starts_with("  ") && l.chars().count() <= 40));
        assert_eq!(wrap_hanging("kort", 40, 2), vec!["kort".to_string()]);
    }
}
