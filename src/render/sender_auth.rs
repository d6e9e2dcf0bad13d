//! The texts of the sender check (docs/reference/mail.md, Proving the sender): the token note in a
//! realm's opening form, the hint to a realm whose name came on a mail without the
//! right token, and the mail with a new token. Swedish and English, always both.
//!
//! Pure: the app passes every value; a quoted subject is already cleaned and cut.

use crate::game::Lang;

/// The lines at the top of a realm's opening form that give it its token.
pub fn token_note(lang: Lang, realm: &str, token: &str) -> String {
    let (head, body) = match lang {
        Lang::Sv => (
            format!("Er hemliga nyckel: [{token}]"),
            format!(
                "Varje brev spelet skickar er slutar ämnet med [k:{token}], så ett vanligt \
                 Svara tar med den. I ett nytt brev: skriv den i ämnet inom hakparenteser, till \
                 exempel «[{token}] {realm} formulär», eller ensam på första raden. Brev utan \
                 den väntar hos spelledaren. Visa den inte för någon."
            ),
        ),
        Lang::En => (
            format!("Your secret token: [{token}]"),
            format!(
                "Every mail the game sends you ends its subject with [k:{token}], so a plain \
                 Reply carries it. In a new mail, put it in the subject in square brackets, for \
                 example “[{token}] {realm} form”, or alone on the first line. Mail without it \
                 waits for the GM. Show it to nobody."
            ),
        ),
    };
    // At the form's width, as every line of the form: a phone shows it without
    // sideways scrolling, and mail programs that do not wrap keep it readable.
    let mut note = head;
    for line in crate::game::text::wrap(&body, crate::game::text::WIDTH, 0) {
        note.push('\n');
        note.push_str(&line);
    }
    note.push('\n');
    note
}

/// Subject and text of the hint mailed to a realm's registered addresses when a mail in
/// its name came without its token (or with a wrong one). Never says the token.
pub fn hint(lang: Lang, realm: &str, subject: &str) -> (String, String) {
    match lang {
        Lang::Sv => (
            format!("{realm}: ett brev utan rätt nyckel"),
            format!(
                "Ett brev i {realm}s namn kom utan rätt nyckel och har inte behandlats; det \
                 väntar hos spelledaren.\n\nÄmne: «{subject}»\n\n\
                 Skickade ni det? Skicka det igen med er nyckel i ämnet inom hakparenteser \
                 ([NYCKEL]) eller ensam på första raden. Nyckeln stod i ert första formulär; \
                 spelledaren kan ge er en ny.\n\
                 Skickade ni det inte? Då skriver någon i ert namn; spelledaren ser brevet.\n"
            ),
        ),
        Lang::En => (
            format!("{realm}: a mail without the right token"),
            format!(
                "A mail in {realm}'s name came without the right token and was not acted on; \
                 it waits for the GM.\n\nSubject: “{subject}”\n\n\
                 Did you send it? Send it again with your token in the subject in square \
                 brackets ([TOKEN]) or alone on the first line. The token was in your opening \
                 form; the GM can give you a new one.\n\
                 Did you not send it? Then someone is writing in your name; the GM sees the mail.\n"
            ),
        ),
    }
}

/// Subject and text of the mail that gives a realm a new token.
pub fn new_token(lang: Lang, realm: &str, token: &str) -> (String, String) {
    let note = token_note(lang, realm, token);
    match lang {
        Lang::Sv => (
            format!("{realm}: ny hemlig nyckel"),
            format!(
                "Spelledaren har gett {realm} en ny hemlig nyckel. Den gamla gäller inte \
                 längre.\n\n{note}"
            ),
        ),
        Lang::En => (
            format!("{realm}: new secret token"),
            format!(
                "The GM has given {realm} a new secret token. The old one no longer \
                 counts.\n\n{note}"
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_note_keeps_to_the_forms_width_in_both_languages() {
        for lang in [Lang::Sv, Lang::En] {
            let note = token_note(lang, "Mirandel", "ABCDEFGHIJ");
            assert!(note.contains("[k:ABCDEFGHIJ]"), "{note}");
            assert!(
                note.lines()
                    .all(|l| l.chars().count() <= crate::game::text::WIDTH),
                "{note}"
            );
        }
    }
}
