//! The player's guide (the mail contract, docs/reference/mail.md): one text in
//! Swedish and one in English, kept as the book's pages `docs/guide/player-sv.md` and
//! `docs/guide/player-en.md` and embedded here; mailed to a realm that asks
//! (`<Land> hjälp` / `<Realm> help`) at any time, free of any game cost (counted
//! against the hourly reply limit like every reply), and audited; named by one line at
//! the top of each opening form.
//!
//! The pages are Markdown of a small, fixed shape; [`to_mail`] turns them into a plain
//! text mail of lines of at most [`WIDTH`] characters: `#` and `##` headings become a
//! title and `== Section ==` lines, a fenced block becomes lines indented by two
//! spaces, a list item a `- ` line, a code span a quote (`«…»` / `“…”`), a link its
//! text; `**` and backslash escapes go, and what stands between `<!-- book -->` and
//! `<!-- /book -->` is for the book only.
//!
//! The guide's subject examples are written with `<Land>`/`<Annat land>` (`<Realm>` /
//! `<Other realm>`) and mailed with the realm's own name and another realm's, so a
//! player can copy them; a test reads every `Ämne:`/`Subject:` line of the guide back
//! through the classifier, so the guide cannot drift from the grammar.

use serde_json::json;

use super::season_notices::flood;
use super::{App, Result};
use crate::clock;
use crate::game::{GameState, Lang};
use crate::mail::compose::Outgoing;
use crate::store::{events, Conn};

/// The guide in Swedish, the book's Markdown page; [`guide`] makes the mail of it.
pub const SV: &str = include_str!("../../docs/guide/player-sv.md");
/// The guide in English, the book's Markdown page; [`guide`] makes the mail of it.
pub const EN: &str = include_str!("../../docs/guide/player-en.md");

/// The stored message's kind for a request.
const KIND: &str = "help";

/// The widest line of the mailed guide, in characters.
pub const WIDTH: usize = 78;

/// The guide in `lang` for `realm`, as mailed: plain text, with `other` standing for
/// another realm in the examples.
pub fn guide(lang: Lang, realm: &str, other: &str) -> String {
    let fill = |s: &str| match lang {
        Lang::Sv => s.replace("<Annat land>", other).replace("<Land>", realm),
        Lang::En => s.replace("<Other realm>", other).replace("<Realm>", realm),
    };
    let md = match lang {
        Lang::Sv => SV,
        Lang::En => EN,
    };
    to_mail(md, lang, fill)
}

/// The guide's Markdown `md` as a plain text mail in `lang`, every text passed through
/// `fill` (which puts in the realm names) before it is wrapped at [`WIDTH`].
pub fn to_mail(md: &str, lang: Lang, fill: impl Fn(&str) -> String) -> String {
    let mut out: Vec<String> = Vec::new();
    // The paragraph or list item being gathered, and whether it is a list item.
    let mut para: Option<(String, bool)> = None;
    let mut fence = false;
    let mut book = false;
    let flush = |para: &mut Option<(String, bool)>, out: &mut Vec<String>| {
        if let Some((text, item)) = para.take() {
            let text = fill(&inline(&text, lang));
            if item {
                let mut lines = crate::game::text::wrap(&text, WIDTH, 2);
                if let Some(first) = lines.first_mut() {
                    first.replace_range(..2, "- ");
                }
                out.extend(lines);
            } else {
                out.extend(crate::game::text::wrap(&text, WIDTH, 0));
            }
        }
    };
    let blank = |out: &mut Vec<String>| {
        if out.last().is_some_and(|l| !l.is_empty()) {
            out.push(String::new());
        }
    };
    for line in md.lines() {
        let t = line.trim();
        if book {
            book = t != "<!-- /book -->";
            continue;
        }
        if fence {
            if t.starts_with("```") {
                fence = false;
                blank(&mut out);
            } else {
                out.push(format!("  {}", fill(line)).trim_end().to_string());
            }
            continue;
        }
        if t == "<!-- book -->" {
            flush(&mut para, &mut out);
            book = true;
            continue;
        }
        if t.starts_with("<!--") && t.ends_with("-->") {
            continue;
        }
        if t.starts_with("```") {
            flush(&mut para, &mut out);
            fence = true;
            continue;
        }
        if t.is_empty() {
            flush(&mut para, &mut out);
            blank(&mut out);
            continue;
        }
        if let Some((level, title)) = heading(t) {
            flush(&mut para, &mut out);
            blank(&mut out);
            let title = fill(&inline(title, lang));
            if level == 1 {
                out.push(title.clone());
                out.push("=".repeat(title.chars().count().min(WIDTH)));
            } else {
                out.push(format!("== {title} =="));
            }
            out.push(String::new());
            continue;
        }
        if let Some(item) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
            flush(&mut para, &mut out);
            para = Some((item.to_string(), true));
            continue;
        }
        match &mut para {
            Some((text, _)) => {
                text.push(' ');
                text.push_str(t);
            }
            None => para = Some((t.to_string(), false)),
        }
    }
    flush(&mut para, &mut out);
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// A heading line's level and title (`## Envoy` → `(2, "Envoy")`).
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|&c| c == '#').count();
    let title = line[level..].strip_prefix(' ')?;
    // A custom anchor (`{#id}`) is the book's business.
    let title = match title.rfind(" {#") {
        Some(i) if title.ends_with('}') => &title[..i],
        _ => title,
    };
    (1..=6).contains(&level).then_some((level, title.trim()))
}

/// One paragraph's inline Markdown as plain text: a code span becomes a quote in
/// `lang`, a link its text; `**`/`__` and backslash escapes go.
fn inline(text: &str, lang: Lang) -> String {
    let (open, close) = match lang {
        Lang::Sv => ('«', '»'),
        Lang::En => ('“', '”'),
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let after = &rest[c.len_utf8()..];
        match c {
            '`' => match after.find('`') {
                Some(end) => {
                    out.push(open);
                    out.push_str(&after[..end]);
                    out.push(close);
                    rest = &after[end + 1..];
                    continue;
                }
                None => out.push(c),
            },
            '\\' => match after.chars().next() {
                Some(n) if n.is_ascii_punctuation() => {
                    out.push(n);
                    rest = &after[1..];
                    continue;
                }
                _ => out.push(c),
            },
            '*' | '_' if after.starts_with(c) => {
                rest = &after[1..];
                continue;
            }
            '[' => {
                if let Some((label, tail)) = after.split_once("](") {
                    if let Some(end) = tail.find(')') {
                        if !label.contains('[') {
                            out.push_str(&inline(label, lang));
                            rest = &tail[end + 1..];
                            continue;
                        }
                    }
                }
                out.push(c);
            }
            _ => out.push(c),
        }
        rest = after;
    }
    out
}

/// Another realm for the guide's examples: the first other realm with a player, by
/// name (the realm itself when it plays alone).
pub fn other_realm<'g>(gs: &'g GameState, realm: &'g str) -> &'g str {
    let mut others: Vec<&str> = gs
        .realms
        .iter()
        .filter(|r| r.name != realm && !r.emails.is_empty())
        .map(|r| r.name.as_str())
        .collect();
    others.sort_unstable();
    others.first().copied().unwrap_or(realm)
}

/// The subject that asks for the guide.
pub fn help_subject(realm: &str, lang: Lang) -> String {
    match lang {
        Lang::Sv => format!("{realm} hjälp"),
        Lang::En => format!("{realm} help"),
    }
}

/// The line at the top of an opening form that names the guide.
pub fn opening_line(lang: Lang, realm: &str) -> String {
    let subject = help_subject(realm, lang);
    match lang {
        Lang::Sv => format!(
            "Spelarhandledning: skriv «{subject}» som ämne i ett brev till spelet, så får du \
             den (gratis, när som helst).\n"
        ),
        Lang::En => format!(
            "Player's guide: mail the game with the subject “{subject}” to get it (free, at \
             any time).\n"
        ),
    }
}

/// `form` with the guide's line on top when it is an opening form (its outbox key
/// starts `opening:`).
pub fn on_opening_form(key: &str, realm: &crate::game::state::Realm, form: String) -> String {
    if key.starts_with("opening:") {
        format!("{}\n{form}", opening_line(realm.language, &realm.name))
    } else {
        form
    }
}

/// A guide request as classified.
pub use super::site_links::Request;

/// Handle a request inside the mail's transaction: store it, mail the guide in the
/// request's language to the realm's registered addresses, audit it.
pub async fn handle(app: &App, conn: &mut Conn, gs: &GameState, req: &Request<'_>) -> Result<()> {
    let now = clock::to_ms(app.now());
    let round = gs.round as i64;
    let id = req.store(conn, KIND, round, now).await?;
    let to = gs
        .realm(req.realm)
        .map(|r| r.emails.clone())
        .unwrap_or_default();
    let subject = match req.lang {
        Lang::Sv => format!("Spelarhandledning för {}", req.realm),
        Lang::En => format!("Player's guide for {}", req.realm),
    };
    let o = Outgoing {
        kind: "player_guide",
        dedup_key: format!("player_guide:{}", req.inbox_id),
        to,
        subject,
        body: guide(req.lang, req.realm, other_realm(gs, req.realm)),
        in_reply_to: req.mail.message_id.clone(),
    };
    let out = flood::enqueue_reply(app, conn, req.realm, &o).await?;
    let detail = json!({"outbox_id": out, "lang": req.lang.code()}).to_string();
    events::log(
        conn,
        now,
        round,
        "player_guide_sent",
        Some(req.realm),
        Some(id),
        &detail,
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mail(md: &str, lang: Lang) -> String {
        to_mail(md, lang, |s| s.replace("<Land>", "Kaldor"))
    }

    #[test]
    fn headings_become_a_title_and_section_lines() {
        let got = mail(
            "# Handledning för \\<Land>\n\nText.\n\n## Sändebud\n\nMer.\n",
            Lang::Sv,
        );
        assert_eq!(
            got,
            "Handledning för Kaldor\n======================\n\nText.\n\n== Sändebud ==\n\nMer.\n"
        );
    }

    #[test]
    fn a_fenced_block_is_indented_and_its_realm_names_filled() {
        let got = mail(
            "Skriv:\n\n```text\nÄmne: <Land> hjälp\n```\n\nSedan.\n",
            Lang::Sv,
        );
        assert_eq!(got, "Skriv:\n\n  Ämne: Kaldor hjälp\n\nSedan.\n");
    }

    #[test]
    fn code_spans_become_quotes_in_the_mails_language() {
        let md = "Skriv `Uppdrag: resurser` och **sedan** `****`.\n";
        assert_eq!(
            mail(md, Lang::Sv),
            "Skriv «Uppdrag: resurser» och sedan «****».\n"
        );
        assert_eq!(
            mail(md, Lang::En),
            "Skriv “Uppdrag: resurser” och sedan “****”.\n"
        );
    }

    #[test]
    fn links_keep_their_text_and_escapes_go() {
        let got = mail(
            "See [the orders](../reference/orders.md), \\<Land>.\n",
            Lang::En,
        );
        assert_eq!(got, "See the orders, Kaldor.\n");
    }

    #[test]
    fn book_only_blocks_and_comments_are_left_out() {
        let md = "A.\n\n<!-- book -->\nFor the book.\n<!-- /book -->\n\n<!-- a note -->\nB.\n";
        assert_eq!(mail(md, Lang::En), "A.\n\nB.\n");
    }

    #[test]
    fn paragraphs_and_list_items_are_joined_and_wrapped_at_the_width() {
        let long = "word ".repeat(40);
        let md = format!("{long}\nmore.\n\n- {long}\n  end.\n- short\n");
        let got = mail(&md, Lang::En);
        assert!(got.lines().all(|l| l.chars().count() <= WIDTH), "{got}");
        let items: Vec<&str> = got.lines().filter(|l| l.starts_with("- ")).collect();
        assert_eq!(items.len(), 2, "{got}");
        assert!(got.contains("word more."), "{got}");
        assert!(
            got.contains("  word end.") || got.contains(" end.\n"),
            "{got}"
        );
        assert!(got.ends_with("- short\n"), "{got}");
    }

    /// The guide as mailed, for realms with long names, is a clean plain-text mail:
    /// no Markdown markup, no `<Land>` or `<Realm>` left, no line wider than [`WIDTH`].
    #[test]
    fn the_mailed_guide_has_no_markup_and_its_realm_names_filled() {
        for (lang, realm, other) in [
            (Lang::Sv, "Stora Öar", "Nya Östvik"),
            (Lang::En, "Stora Öar", "Nya Östvik"),
            (Lang::Sv, "Kaldor", "Afani"),
            (Lang::En, "Afani", "Fugandri"),
        ] {
            let text = guide(lang, realm, other);
            // `****` is the trailer's separator line, written by the player: content.
            let markup = text.replace("****", "");
            for bad in [
                "**",
                "`",
                "](",
                "<!--",
                "-->",
                "\\",
                "<Land>",
                "<Annat land>",
                "<Realm>",
                "<Other realm>",
                "\t",
            ] {
                assert!(!markup.contains(bad), "{lang:?}: {bad:?} in\n{text}");
            }
            for line in text.lines() {
                assert!(!line.starts_with('#'), "{lang:?}: {line:?}");
                assert!(!line.starts_with("```"), "{lang:?}: {line:?}");
                assert!(
                    line.chars().count() <= WIDTH,
                    "{lang:?}: too wide: {line:?}"
                );
                assert_eq!(line, line.trim_end(), "{lang:?}: trailing space: {line:?}");
            }
            assert!(text.contains(realm) && text.contains(other), "{text}");
            assert!(text.contains(&help_subject(realm, lang)), "{text}");
        }
    }

    /// The costs the guide names are the rules' own.
    #[test]
    fn the_guide_names_the_rules_costs() {
        use crate::game::units::{AgentKind, Spell};
        use crate::game::Resource::*;
        let envoy = AgentKind::Sandebud.cost();
        let merchant = AgentKind::Handelsman.cost();
        let spy = AgentKind::Spion.cost();
        let reveal = Spell::Avsloja.cost();
        let (e, m, s, r) = (
            [envoy.get(Mat), envoy.get(Tyg), envoy.get(Guld)],
            [merchant.get(Mat), merchant.get(Tyg), merchant.get(Guld)],
            [spy.get(Mat), spy.get(Guld), spy.get(Hastar)],
            [reveal.get(Vatten), reveal.get(Eld)],
        );
        let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let sv = flat(&guide(Lang::Sv, "Kaldor", "Afani"));
        let en = flat(&guide(Lang::En, "Afani", "Kaldor"));
        for want in [
            format!("{} mat, {} tyg och {} guld", e[0], e[1], e[2]),
            format!("{} mat, {} tyg och {} guld", m[0], m[1], m[2]),
            format!("{} mat, {} guld och {} häst", s[0], s[1], s[2]),
            format!("{} vatten och {} eld", r[0], r[1]),
        ] {
            assert!(sv.contains(&want), "sv lacks {want:?}");
        }
        for want in [
            format!("{} food, {} cloth and {} gold", e[0], e[1], e[2]),
            format!("{} food, {} cloth and {} gold", m[0], m[1], m[2]),
            format!("{} food, {} gold and {} horse", s[0], s[1], s[2]),
            format!("{} water and {} fire", r[0], r[1]),
        ] {
            assert!(en.contains(&want), "en lacks {want:?}");
        }
    }
}
