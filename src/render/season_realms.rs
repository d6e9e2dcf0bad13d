//! The texts of absences, missed weekends and replacements (docs/gm/season.md):
//! what a realm reads in its own language, and the GM's notices in both.
//!
//! Pure: the app passes every value (times already written in the realm's zone and
//! language); player text passed in is already cleaned and cut by the caller.

use crate::game::Lang;

/// What an absence receipt tells the realm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbsenceReceipt<'a> {
    pub realm: &'a str,
    pub weekends: u32,
    pub from_round: u32,
    pub to_round: u32,
    /// The form deadlines of those weekends, in the realm's language.
    pub deadlines: &'a [String],
    /// `forms.missing: reuse-last`: the last orders stand; else the realm stands still.
    pub reuse_last: bool,
    /// Absences used with this one, and the game's cap.
    pub used: u32,
    pub cap: u32,
}

fn weekends(lang: Lang, n: u32) -> String {
    match (lang, n) {
        (Lang::Sv, 1) => "1 helg".into(),
        (Lang::Sv, n) => format!("{n} helger"),
        (Lang::En, 1) => "1 weekend".into(),
        (Lang::En, n) => format!("{n} weekends"),
    }
}

fn rounds(lang: Lang, from: u32, to: u32) -> String {
    match (lang, from == to) {
        (Lang::Sv, true) => format!("runda {from}"),
        (Lang::Sv, false) => format!("rundorna {from}–{to}"),
        (Lang::En, true) => format!("round {from}"),
        (Lang::En, false) => format!("rounds {from}–{to}"),
    }
}

/// The realm's receipt for an absence granted by mail (or by the GM).
pub fn absence_receipt(lang: Lang, r: &AbsenceReceipt<'_>) -> String {
    let (n, rounds) = (
        weekends(lang, r.weekends),
        rounds(lang, r.from_round, r.to_round),
    );
    let deadlines = r.deadlines.join("; ");
    match lang {
        Lang::Sv => format!(
            "Er frånvaro är noterad: {realm} är borta {n}, {rounds} (sista tid för formulären: \
             {deadlines}).\n\n{meanwhile}\n\nSkickar ni ändå ett formulär gäller det som vanligt. \
             En helg borta räknas inte som en missad helg, och ni får inga påminnelser under tiden.\n\n\
             Detta är frånvaro {used} av {cap} under spelet. Spelledaren har fått besked.\n",
            realm = r.realm,
            meanwhile = if r.reuse_last {
                "Under tiden gäller era senaste order igen, de som reglerna fortfarande tillåter."
            } else {
                "Under tiden står era arméer och flottor still och inget köps."
            },
            used = r.used,
            cap = r.cap,
        ),
        Lang::En => format!(
            "Your absence is noted: {realm} is away for {n}, {rounds} (form deadlines: \
             {deadlines}).\n\n{meanwhile}\n\nA form you send anyway counts as usual. A weekend \
             away does not count as a missed weekend, and you get no reminders meanwhile.\n\n\
             This is absence {used} of {cap} in this game. The GM has been told.\n",
            realm = r.realm,
            meanwhile = if r.reuse_last {
                "Meanwhile your last orders are used again, those the rules still allow."
            } else {
                "Meanwhile your armies and fleets stand still and nothing is bought."
            },
            used = r.used,
            cap = r.cap,
        ),
    }
}

/// The reply when the realm has used every absence the game gives by mail: the GM
/// decides. `subject` is the mail's subject, cleaned.
pub fn absence_beyond_cap(lang: Lang, subject: &str, cap: u32) -> String {
    match (lang, cap) {
        (Lang::Sv, 0) => format!(
            "Det här spelet tar inte emot frånvaro per brev. Spelledaren avgör er begäran \
             «{subject}» och svarar själv.\n"
        ),
        (Lang::Sv, _) => format!(
            "Ni har redan använt alla {cap} tillfällen till frånvaro som spelet ger. Spelledaren \
             avgör er begäran «{subject}» och svarar själv.\n"
        ),
        (Lang::En, 0) => format!(
            "This game takes no absences by mail. The GM decides on your request “{subject}” \
             and will answer in person.\n"
        ),
        (Lang::En, _) => format!(
            "You have already used all {cap} absences this game allows. The GM decides on your \
             request “{subject}” and will answer in person.\n"
        ),
    }
}

/// Why an absence subject was refused (its count is missing, unreadable or out of
/// range), with the right form. `topic` is the player's text, cleaned.
pub fn absence_refusal(lang: Lang, realm: &str, topic: &str, max: u32) -> String {
    match lang {
        Lang::Sv => format!(
            "«{topic}» anger ingen giltig frånvaro: skriv antalet helger, 1 till {max}, till \
             exempel «{realm} till SL: frånvaro 2»."
        ),
        Lang::En => format!(
            "“{topic}” gives no valid absence: write the number of weekends, 1 to {max}, for \
             example “{realm} to GM: absence 2”."
        ),
    }
}

/// The realm's notice that the GM ended its absence.
pub fn absence_ended(lang: Lang, realm: &str, round: u32) -> String {
    match lang {
        Lang::Sv => format!(
            "Spelledaren har avslutat frånvaron för {realm}. Från och med runda {round} gäller \
             helgerna som vanligt: skicka ert formulär före sista tiden.\n"
        ),
        Lang::En => format!(
            "The GM has ended {realm}'s absence. From round {round} on the weekends count as \
             usual: send your form before the deadline.\n"
        ),
    }
}

/// The line above the form a replacement player gets at once.
pub fn welcome(lang: Lang, realm: &str, player: Option<&str>) -> String {
    match (lang, player) {
        (Lang::Sv, Some(p)) => format!(
            "Välkommen, {p}! Från och med nu spelar du {realm}: spelledaren har gett dig riket. \
             Här nedan är rikets aktuella formulär; svara på det som vanligt.\n"
        ),
        (Lang::Sv, None) => format!(
            "Välkommen! Från och med nu spelar du {realm}: spelledaren har gett dig riket. \
             Här nedan är rikets aktuella formulär; svara på det som vanligt.\n"
        ),
        (Lang::En, Some(p)) => format!(
            "Welcome, {p}! From now on you play {realm}: the GM has handed the realm to you. \
             Below is the realm's current form; answer it as usual.\n"
        ),
        (Lang::En, None) => format!(
            "Welcome! From now on you play {realm}: the GM has handed the realm to you. Below \
             is the realm's current form; answer it as usual.\n"
        ),
    }
}

/// The realm's notice that the GM added or removed one of its addresses.
pub fn address_changed(lang: Lang, realm: &str, address: &str, added: bool) -> String {
    match (lang, added) {
        (Lang::Sv, true) => format!(
            "Spelledaren har lagt till adressen <{address}> för {realm}. Brev från den räknas \
             nu som rikets, och rikets brev går också dit.\n"
        ),
        (Lang::Sv, false) => format!(
            "Spelledaren har tagit bort adressen <{address}> från {realm}. Brev därifrån räknas \
             inte längre som rikets.\n"
        ),
        (Lang::En, true) => format!(
            "The GM has added the address <{address}> to {realm}. Mail from it now counts as \
             the realm's, and the realm's mail goes there too.\n"
        ),
        (Lang::En, false) => format!(
            "The GM has removed the address <{address}> from {realm}. Mail from it no longer \
             counts as the realm's.\n"
        ),
    }
}

/// The GM's notice of an absence (granted, or waiting beyond the cap), both languages.
pub fn gm_absence(realm: &str, r: Option<&AbsenceReceipt<'_>>, used: u32, cap: u32) -> String {
    match r {
        Some(r) => format!(
            "{realm} är borta {sv}, runda {from}–{to} (frånvaro {used} av {cap}).\n\
             {realm} is away for {en}, rounds {from}–{to} (absence {used} of {cap}).\n",
            sv = weekends(Lang::Sv, r.weekends),
            en = weekends(Lang::En, r.weekends),
            from = r.from_round,
            to = r.to_round,
        ),
        None => format!(
            "{realm} ber om frånvaro men har använt {used} av {cap}: brevet väntar i kön, \
             spelledaren avgör (`pbemd gm realm {realm} absence N`).\n\
             {realm} asks for an absence but has used {used} of {cap}: the mail waits in the \
             queue for the GM to decide (`pbemd gm realm {realm} absence N`).\n"
        ),
    }
}

/// The GM's notice that a realm missed weekends in a row, both languages.
pub fn gm_seeking_replacement(realm: &str, missed: u32, round: u32) -> String {
    format!(
        "{realm} har inte skickat något formulär {missed} helger i rad (senast runda {round}) \
         och söker nu en ersättare. Formulären fortsätter att gå ut. \
         `pbemd gm realm {realm} replace ADRESS` ger riket till en ny spelare.\n\n\
         {realm} has sent no form for {missed} weekends in a row (last: round {round}) and now \
         seeks a replacement. Its forms keep going out. \
         `pbemd gm realm {realm} replace ADDRESS` hands the realm to a new player.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_agree_with_their_nouns_in_both_languages() {
        let d = vec!["söndag 6 december 15:00".to_string()];
        let one = AbsenceReceipt {
            realm: "Kaldor",
            weekends: 1,
            from_round: 3,
            to_round: 3,
            deadlines: &d,
            reuse_last: false,
            used: 1,
            cap: 2,
        };
        assert!(absence_receipt(Lang::Sv, &one).contains("borta 1 helg, runda 3 "));
        assert!(absence_receipt(Lang::En, &one).contains("away for 1 weekend, round 3 "));
        let two = AbsenceReceipt {
            weekends: 2,
            to_round: 4,
            reuse_last: true,
            ..one
        };
        let sv = absence_receipt(Lang::Sv, &two);
        assert!(sv.contains("borta 2 helger, rundorna 3–4"), "{sv}");
        assert!(sv.contains("senaste order igen"), "{sv}");
        let en = absence_receipt(Lang::En, &two);
        assert!(en.contains("away for 2 weekends, rounds 3–4"), "{en}");
    }
}
