//! Sender authentication (docs/reference/mail.md, Who sent it; Proving the sender): is a
//! mail whose `From` names a realm's address really that realm's?
//!
//! Two pure checks. `dkim`: the `Authentication-Results` header (RFC 8601) added by
//! the game's own receiving server, recognised by its authserv-id, says DKIM passed for
//! a domain aligned with the `From` domain, or DMARC passed for the `From` domain.
//! `token`: the realm's secret token stands in the subject as `[TOKEN]` or `[k:TOKEN]`
//! (the tag pbemd ends its own mail to the realm with, so a plain reply carries it) or
//! on the first line of the body; it is found, compared in constant time, and cut out.
//!
//! No I/O, no clock, no randomness: the app passes the random bytes of a new token.

/// Longest `Authentication-Results` value read, in bytes; a longer one counts for nothing.
pub const MAX_HEADER_BYTES: usize = 8 * 1024;
/// At most this many `Authentication-Results` headers are looked at.
pub const MAX_HEADERS: usize = 32;
/// At most this many results are read from one header.
const MAX_RESULTS: usize = 64;

/// One `method=result` with its properties, names lower-cased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodResult {
    pub method: String,
    pub result: String,
    /// `(ptype.property, value)`, e.g. `("header.d", "example.se")`.
    pub props: Vec<(String, String)>,
}

impl MethodResult {
    fn prop(&self, name: &str) -> Option<&str> {
        self.props
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One parsed `Authentication-Results` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthResults {
    pub authserv_id: String,
    pub results: Vec<MethodResult>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(String),
    Quoted(String),
    Semi,
    Eq,
    Slash,
}

/// Split a header value into tokens in one pass: comments (nested, with `\` escapes)
/// are dropped, quoted strings unescaped. `None` for an unterminated quote or comment.
fn tokens(value: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            ';' => out.push(Tok::Semi),
            '=' => out.push(Tok::Eq),
            '/' => out.push(Tok::Slash),
            '(' => {
                let mut depth = 1u32;
                while depth > 0 {
                    match chars.next()? {
                        '\\' => {
                            chars.next()?;
                        }
                        '(' => depth = depth.checked_add(1)?,
                        ')' => depth -= 1,
                        _ => {}
                    }
                }
            }
            '"' => {
                let mut s = String::new();
                loop {
                    match chars.next()? {
                        '\\' => s.push(chars.next()?),
                        '"' => break,
                        c => s.push(c),
                    }
                }
                out.push(Tok::Quoted(s));
            }
            c => {
                let mut s = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_whitespace() || matches!(n, ';' | '=' | '/' | '(' | '"') {
                        break;
                    }
                    s.push(n);
                    chars.next();
                }
                out.push(Tok::Word(s));
            }
        }
    }
    Some(out)
}

/// Parse one header value. Results are read up to the first that does not follow the
/// grammar; `None` when the value is too long or not even the authserv-id is readable.
pub fn parse_auth_results(value: &str) -> Option<AuthResults> {
    if value.len() > MAX_HEADER_BYTES {
        return None;
    }
    let toks = tokens(value)?;
    let mut it = toks.into_iter().peekable();
    let authserv_id = match it.next()? {
        Tok::Word(w) | Tok::Quoted(w) => w,
        _ => return None,
    };
    // An optional version number before the first `;`.
    if matches!(it.peek(), Some(Tok::Word(w)) if w.bytes().all(|b| b.is_ascii_digit())) {
        it.next();
    }
    let mut results = Vec::new();
    while results.len() < MAX_RESULTS {
        match it.next() {
            Some(Tok::Semi) => {}
            _ => break,
        }
        let Some(r) = method_result(&mut it) else {
            break;
        };
        results.push(r);
    }
    Some(AuthResults {
        authserv_id,
        results,
    })
}

type Toks = std::iter::Peekable<std::vec::IntoIter<Tok>>;

/// `method[/version]=result [reason=…] [ptype.prop=value]…`, up to the next `;`.
fn method_result(it: &mut Toks) -> Option<MethodResult> {
    let Some(Tok::Word(method)) = it.next() else {
        return None;
    };
    if it.peek() == Some(&Tok::Slash) {
        it.next();
        it.next()?;
    }
    if it.next()? != Tok::Eq {
        return None;
    }
    let Some(Tok::Word(result)) = it.next() else {
        return None;
    };
    let mut props = Vec::new();
    while let Some(Tok::Word(_)) = it.peek() {
        let Some(Tok::Word(name)) = it.next() else {
            return None;
        };
        if it.next()? != Tok::Eq {
            return None;
        }
        let value = match it.next()? {
            Tok::Word(v) | Tok::Quoted(v) => v,
            _ => return None,
        };
        props.push((name.to_ascii_lowercase(), value));
    }
    Some(MethodResult {
        method: method.to_ascii_lowercase(),
        result: result.to_ascii_lowercase(),
        props,
    })
}

/// The domain of an address or identity (`user@d`, `@d`, `d`), lower-cased, without a
/// trailing dot.
fn domain_of(s: &str) -> &str {
    let d = s.rsplit('@').next().unwrap_or(s);
    d.trim_end_matches('.')
}

/// Relaxed alignment, kept simple: the signing domain and the `From` domain are equal,
/// or one is a subdomain of the other. A signing domain without a dot (a top-level
/// domain) aligns with nothing.
pub fn aligned(signing: &str, from: &str) -> bool {
    let (d, f) = (
        domain_of(signing).to_ascii_lowercase(),
        domain_of(from).to_ascii_lowercase(),
    );
    if d.is_empty() || f.is_empty() || !d.contains('.') {
        return false;
    }
    d == f || f.ends_with(&format!(".{d}")) || d.ends_with(&format!(".{f}"))
}

/// The `dkim` check: `Ok(how)` when the first `Authentication-Results` header from
/// `authserv_id` (headers from other servers are ignored: anyone can add one) holds a
/// DKIM pass aligned with the `From` address, or a DMARC pass for its domain;
/// `Err(why)` otherwise. Only the topmost such header counts: the game's server adds
/// its own above whatever the mail brought along (and should remove those).
pub fn dkim_check(
    headers: &[String],
    authserv_id: &str,
    from: Option<&str>,
) -> Result<String, String> {
    let Some(from) = from.filter(|f| f.contains('@')) else {
        return Err("the mail has no From address".into());
    };
    let from_domain = domain_of(from).to_ascii_lowercase();
    let Some(ours) = headers
        .iter()
        .take(MAX_HEADERS)
        .filter_map(|h| parse_auth_results(h))
        .find(|h| h.authserv_id.eq_ignore_ascii_case(authserv_id))
    else {
        return Err(format!(
            "no Authentication-Results header from {authserv_id} (the game's mail server)"
        ));
    };
    let mut seen = Vec::new();
    for r in &ours.results {
        let passed = r.result == "pass";
        match r.method.as_str() {
            "dkim" => {
                let d = r.prop("header.d").or_else(|| r.prop("header.i"));
                if passed && d.is_some_and(|d| aligned(d, &from_domain)) {
                    return Ok(format!("dkim=pass for {}", d.unwrap_or_default()));
                }
                seen.push(format!("dkim={} for {}", r.result, d.unwrap_or("?")));
            }
            "dmarc" => {
                let hf = r.prop("header.from").map(domain_of);
                if passed && hf.is_some_and(|h| h.eq_ignore_ascii_case(&from_domain)) {
                    return Ok(format!("dmarc=pass for {from_domain}"));
                }
                seen.push(format!("dmarc={} for {}", r.result, hf.unwrap_or("?")));
            }
            _ => {}
        }
    }
    let seen = if seen.is_empty() {
        "no DKIM or DMARC result".to_string()
    } else {
        seen.join(", ")
    };
    Err(format!(
        "{authserv_id} found no DKIM or DMARC pass aligned with {from_domain} ({seen})"
    ))
}

/// RFC 4648 base32 alphabet (no 0, 1, 8, 9: nothing to misread).
const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/// Characters in a token.
pub const TOKEN_LEN: usize = 10;

/// A token of [`TOKEN_LEN`] base32 characters (50 bits) from the app's random bytes.
pub fn new_token(random: [u8; 7]) -> String {
    let mut bits = 0u64;
    for b in random {
        bits = (bits << 8) | u64::from(b);
    }
    (0..TOKEN_LEN)
        .map(|i| BASE32[((bits >> (i * 5)) & 31) as usize] as char)
        .collect()
}

/// Equal ignoring ASCII case, in time that depends on the length only.
pub fn tokens_equal(given: &str, token: &str) -> bool {
    let (a, b) = (given.as_bytes(), token.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| {
        acc | (x.to_ascii_uppercase() ^ y.to_ascii_uppercase())
    });
    std::hint::black_box(diff) == 0
}

/// A mail's subject and text with the token cut out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripped {
    pub subject: Option<String>,
    pub text: String,
}

/// Find `token` as `[token]` in the subject or on the first non-blank line of the text
/// (alone, in brackets, or after `token:`/`nyckel:`), and return both without it.
/// `None` when it is in neither place.
pub fn take_token(subject: Option<&str>, text: &str, token: &str) -> Option<Stripped> {
    if token.len() != TOKEN_LEN {
        return None;
    }
    let in_subject = subject.and_then(|s| cut_from_subject(s, token));
    let in_text = first_line_cut(text, token);
    if in_subject.is_none() && in_text.is_none() {
        return None;
    }
    Some(Stripped {
        subject: match in_subject {
            Some(s) => Some(s).filter(|s| !s.is_empty()),
            None => subject.map(str::to_string),
        },
        text: in_text.unwrap_or_else(|| text.to_string()),
    })
}

/// The subject without its `[token]`, spaces tidied; `None` when it holds none. Each
/// `[` looks at most a few bytes ahead for its `]`, so the scan stays linear.
fn cut_from_subject(subject: &str, token: &str) -> Option<String> {
    const WINDOW: usize = TOKEN_LEN + 8;
    let bytes = subject.as_bytes();
    for (open, _) in subject.match_indices('[') {
        let end = bytes.len().min(open + 1 + WINDOW);
        let Some(close) = bytes[open + 1..end].iter().position(|&b| b == b']') else {
            continue;
        };
        let close = open + 1 + close;
        if tokens_equal(tag_inside(&subject[open + 1..close]), token) {
            let rest = format!("{} {}", &subject[..open], &subject[close + 1..]);
            return Some(rest.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    None
}

/// What stands between a subject's brackets without the `k:` pbemd writes before the
/// token (`[k:TOKEN]`, any case, spaces allowed) and the spaces around it.
fn tag_inside(inside: &str) -> &str {
    let t = inside.trim();
    match t.get(..2) {
        Some(k) if k.eq_ignore_ascii_case("k:") => t[2..].trim(),
        _ => t,
    }
}

/// The tag pbemd ends the subject of every mail to a realm with in the token modes, so
/// that a plain reply carries the realm's token back (D-42, D-79).
pub fn subject_tag(token: &str) -> String {
    format!("[k:{token}]")
}

/// `subject` without any `[k:…]` tag (a reply's subject may quote one) and, given a
/// token, with that realm's tag at its end. Linear in the subject.
pub fn tag_subject(subject: &str, token: Option<&str>) -> String {
    let mut out = String::with_capacity(subject.len() + TOKEN_LEN + 6);
    let mut rest = subject;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let tagged = after
            .get(..2)
            .is_some_and(|k| k.eq_ignore_ascii_case("k:"))
            .then(|| {
                let window = &after.as_bytes()[..after.len().min(TOKEN_LEN + 9)];
                window.iter().position(|&b| b == b']')
            })
            .flatten();
        match tagged {
            Some(close) => {
                out.push_str(rest[..open].trim_end());
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    let mut out = out.trim().to_string();
    if let Some(token) = token {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&subject_tag(token));
    }
    out
}

/// `text` with every whole-word `token` (and a `[k:` … `]` or `[` … `]` around it) cut
/// out: a reply may quote the subject of the mail it answers (Outlook's quoted header
/// block does), and the token must never travel on to another realm. Linear in the text.
pub fn scrub_token(text: &str, token: &str) -> String {
    if token.len() != TOKEN_LEN
        || !text
            .to_ascii_uppercase()
            .contains(&token.to_ascii_uppercase())
    {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((at, len)) = find_word(rest, token) {
        let mut left = &rest[..at];
        let mut right = &rest[at + len..];
        if right.starts_with(']') {
            let l = left.trim_end();
            // Compared as bytes: the three bytes before the token may end a character
            // of several (`“[TOKEN]`), and only an ASCII `[k:` is cut.
            let cut = if l.len() >= 3 && l.as_bytes()[l.len() - 3..].eq_ignore_ascii_case(b"[k:") {
                Some(l.len() - 3)
            } else if l.ends_with('[') {
                Some(l.len() - 1)
            } else {
                None
            };
            if let Some(c) = cut {
                left = &left[..c];
                right = &right[1..];
            }
        }
        out.push_str(left);
        rest = right;
    }
    out.push_str(rest);
    out
}

/// Words that may stand before the token on its line.
const TOKEN_LABELS: &[&str] = &["token", "nyckel", "kod", "code"];

/// The text without the token on its first non-blank line; the line goes when nothing
/// but the token (bracketed, or after a label) was on it. `None` when it is not there.
fn first_line_cut(text: &str, token: &str) -> Option<String> {
    let start = text.len() - text.trim_start().len();
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = &text[start..end];
    let (at, len) = find_word(line, token)?;
    let mut left = line[..at].to_string();
    let mut right = &line[at + len..];
    if left.ends_with('[') && right.starts_with(']') {
        left.pop();
        right = &right[1..];
    }
    let rest = format!("{}{}", left.trim_end(), right);
    let bare = rest
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let rest_after = &text[end..];
    if bare.is_empty() || TOKEN_LABELS.contains(&bare.as_str()) {
        return Some(rest_after.trim_start_matches(['\r', '\n']).to_string());
    }
    Some(format!("{}{}{rest_after}", &text[..start], rest.trim()))
}

/// Byte offset and length of `token` in `line` as a whole word (not inside a longer
/// run of letters and digits).
fn find_word(line: &str, token: &str) -> Option<(usize, usize)> {
    let mut run_start = None;
    for (i, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        match (c.is_ascii_alphanumeric(), run_start) {
            (true, None) => run_start = Some(i),
            (false, Some(s)) => {
                if tokens_equal(&line[s..i], token) {
                    return Some((s, i - s));
                }
                run_start = None;
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests;
