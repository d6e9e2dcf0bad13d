//! HTML building blocks: escaping and the page frame. Every text that came from a mail,
//! a realm name or the state is escaped here; nothing else builds markup from data.

use std::fmt::Write;

use axum::response::Html;

/// Escape text for an HTML element body or a quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Escape a value for one component of a URL path or query (`/gm/realm/{name}`).
pub fn url_part(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// The links across the top of a page: (href, label), both plain text (escaped here).
pub type Nav<'a> = &'a [(&'a str, &'a str)];

/// The GM's desk: every page's links across the top. The URLs are the site's contract.
pub const DESK_NAV: Nav<'static> = &[
    ("/gm", "Week"),
    ("/gm/queue", "Queue"),
    ("/gm/drafts", "Monday results"),
    ("/gm/realms", "Realms"),
    ("/gm/map", "Map"),
    ("/gm/audit", "Audit log"),
    ("/gm/season", "Season"),
    ("/board", "Trade board"),
    ("/gm/logout", "Log out"),
];

/// A whole page: `title` is plain text (escaped here), `body` is markup the caller built
/// from escaped parts. `lang` is the page's language (`sv` or `en`).
pub fn page(lang: &str, title: &str, nav: Nav<'_>, body: &str) -> Html<String> {
    let mut out = String::with_capacity(body.len() + 1024);
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>{STYLE}</style></head><body>\n<nav>",
        lang = escape(lang),
        title = escape(title),
    );
    for (href, label) in nav {
        let _ = write!(out, "<a href=\"{}\">{}</a> ", escape(href), escape(label));
    }
    let _ = write!(
        out,
        "</nav>\n<main>\n<h1>{}</h1>\n{body}\n</main></body></html>\n",
        escape(title)
    );
    Html(out)
}

/// A table from a header row and rows of already-escaped cells.
pub fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::from("<table><thead><tr>");
    for h in head {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr></thead><tbody>\n");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{cell}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
    out
}

/// The site's one style sheet, inline (no request for it, nothing fetched elsewhere).
const STYLE: &str = "body{font-family:sans-serif;margin:0;color:#222}\
nav{background:#234;padding:.5em 1em}nav a{color:#fff;margin-right:1em}\
main{padding:1em;max-width:70em}table{border-collapse:collapse;margin:.5em 0}\
td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left;vertical-align:top}\
pre{white-space:pre-wrap;background:#f4f4f4;padding:.5em;border:1px solid #ddd}\
textarea{width:100%;max-width:50em;box-sizing:border-box}\
.error{color:#a00}.ok{color:#070}form.inline{display:inline}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_player_text_comes_out_inert() {
        let out = escape("<script>alert(1)</script><img src=x onerror=\"a\"> & 'q'");
        assert_eq!(
            out,
            "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;a&quot;&gt; &amp; &#39;q&#39;"
        );
    }

    #[test]
    fn url_parts_keep_only_unreserved_bytes() {
        assert_eq!(url_part("Öland/x y"), "%C3%96land%2Fx%20y");
    }
}
