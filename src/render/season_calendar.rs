//! What realms are told about the season's calendar: a pause, its end, a deadline
//! extension, a mail that came during a pause, and the skipped dates on the Monday
//! forms. Every text in Swedish and in English; times and dates come in already
//! written for the realm.

use crate::game::Lang;

/// The mail every realm gets when the GM pauses the game.
pub fn paused(lang: Lang, until: &str, reason: &str) -> String {
    let reason = reason_line(lang, reason);
    match lang {
        Lang::Sv => format!(
            "Spelledaren har pausat spelet till {until}.\n{reason}\n\
             Under pausen öppnas och stängs inga fönster och ingen runda avgörs. Post ni \
             skickar under pausen sparas och behandlas när spelet fortsätter. Då får ni \
             veta den nya sista inlämningstiden.\n"
        ),
        Lang::En => format!(
            "The GM has paused the game until {until}.\n{reason}\n\
             During the pause no window opens or closes and no round is resolved. Mail you \
             send during the pause is kept and handled when the game resumes. You will then \
             be told the new form deadline.\n"
        ),
    }
}

/// The mail every realm gets when the game resumes.
pub fn resumed(lang: Lang, deadline: &str) -> String {
    match lang {
        Lang::Sv => format!(
            "Spelet fortsätter. Veckan går vidare där den stod när spelet pausades; alla \
             senare tider flyttas lika långt som pausen varade.\n\n\
             Ny sista inlämning för helgformuläret: {deadline}\n"
        ),
        Lang::En => format!(
            "The game resumes. The week continues from where it stood when the game was \
             paused; every later time moves by the length of the pause.\n\n\
             New form deadline: {deadline}\n"
        ),
    }
}

/// The reply to a mail received while the game is paused (or in skipped dates).
pub fn mail_while_paused(
    lang: Lang,
    subject: &str,
    received: &str,
    until: &str,
    reason: &str,
) -> String {
    let reason = reason_line(lang, reason);
    match lang {
        Lang::Sv => format!(
            "Spelet är pausat till {until}.\n{reason}\n\
             Ert brev «{subject}» kom fram {received} och har sparats. Det behandlas när \
             spelet fortsätter, enligt det fönster som gäller då.\n"
        ),
        Lang::En => format!(
            "The game is paused until {until}.\n{reason}\n\
             Your mail «{subject}» arrived {received} and has been kept. It is handled when \
             the game resumes, by the window in force then.\n"
        ),
    }
}

/// The mail a realm gets when the form deadline is extended, for all or for it.
pub fn extended(lang: Lang, deadline: &str, only_you: bool) -> String {
    match (lang, only_you) {
        (Lang::Sv, false) => format!(
            "Spelledaren har förlängt helgens inlämningstid för alla riken.\n\n\
             Ny sista inlämning: {deadline}\n\nRundan avgörs först därefter.\n"
        ),
        (Lang::Sv, true) => format!(
            "Spelledaren tar emot ert helgformulär sent.\n\n\
             Ert formulär tas emot till och med: {deadline}\n\n\
             Rundan avgörs först därefter. Andra rikens tid är densamma som förut.\n"
        ),
        (Lang::En, false) => format!(
            "The GM has extended this weekend's form deadline for every realm.\n\n\
             New form deadline: {deadline}\n\nThe round is resolved after it.\n"
        ),
        (Lang::En, true) => format!(
            "The GM will accept your weekend form late.\n\n\
             Your form is accepted until: {deadline}\n\n\
             The round is resolved after that. Other realms keep the usual deadline.\n"
        ),
    }
}

/// Above the refusal of a form that came after its extended deadline, once the round
/// has been resolved.
pub fn late_form_refused(lang: Lang, until: &str, round: u32) -> String {
    match lang {
        Lang::Sv => format!(
            "Ert formulär kom efter er förlängda inlämningstid ({until}). Runda {round} är \
             redan avgjord, så formuläret räknas inte."
        ),
        Lang::En => format!(
            "Your form came after your extended deadline ({until}). Round {round} has already \
             been resolved, so the form does not count."
        ),
    }
}

/// The line on the Monday form for skipped dates coming up.
pub fn no_game(lang: Lang, dates: &str, reason: &str) -> String {
    let reason = if reason.trim().is_empty() {
        String::new()
    } else {
        format!(" ({})", reason.trim())
    };
    match lang {
        Lang::Sv => format!("Inget spel {dates}{reason}: under de dagarna står veckan still."),
        Lang::En => format!("No game {dates}{reason}: the week stands still on those days."),
    }
}

/// The subject of calendar mails to a realm.
pub fn subject(lang: Lang, realm: &str) -> String {
    match lang {
        Lang::Sv => format!("{realm}: meddelande från spelledaren om tiderna"),
        Lang::En => format!("{realm}: the GM on the calendar"),
    }
}

fn reason_line(lang: Lang, reason: &str) -> String {
    let reason = reason.trim();
    match (lang, reason.is_empty()) {
        (_, true) => String::new(),
        (Lang::Sv, false) => format!("Skäl: {reason}\n"),
        (Lang::En, false) => format!("Reason: {reason}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every text of this module in one language, with sample values.
    fn all(lang: Lang) -> Vec<String> {
        let (t, r) = ("2026-12-02 15:00", "Jul");
        vec![
            paused(lang, t, r),
            paused(lang, t, ""),
            resumed(lang, t),
            mail_while_paused(lang, "«x»", t, t, r),
            extended(lang, t, false),
            extended(lang, t, true),
            late_form_refused(lang, t, 3),
            no_game(lang, "21 dec 2026 – 3 jan 2027", r),
            subject(lang, "Afani"),
        ]
    }

    fn words(text: &str) -> Vec<String> {
        text.split(|c: char| !c.is_alphabetic())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    #[test]
    fn swedish_texts_hold_no_english_words_and_english_no_swedish() {
        const EN: &[&str] = &["the", "is", "your", "game", "deadline", "paused", "form"];
        const SV: &[&str] = &["är", "och", "ert", "spelet", "formulär", "till", "inte"];
        for text in all(Lang::Sv) {
            let w = words(&text);
            assert!(!EN.iter().any(|e| w.iter().any(|x| x == e)), "{text}");
        }
        for text in all(Lang::En) {
            let w = words(&text);
            assert!(!SV.iter().any(|s| w.iter().any(|x| x == s)), "{text}");
            assert!(!text.contains(['å', 'ä', 'ö']), "{text}");
        }
    }

    #[test]
    fn a_pause_without_a_reason_prints_no_reason_line() {
        assert!(!paused(Lang::En, "x", " ").contains("Reason"));
        assert!(paused(Lang::Sv, "x", "Jul").contains("Skäl: Jul"));
    }
}
