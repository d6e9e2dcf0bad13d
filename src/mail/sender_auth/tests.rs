use super::*;

const ID: &str = "mx.game.test";

fn check(headers: &[&str], from: &str) -> Result<String, String> {
    let h: Vec<String> = headers.iter().map(|s| s.to_string()).collect();
    dkim_check(&h, ID, Some(from))
}

#[test]
fn an_aligned_dkim_pass_from_our_server_counts() {
    let h = "mx.game.test; dkim=pass (1024-bit key; unprotected) header.d=player.test \
             header.i=@player.test header.b=\"AbC+/x\"";
    assert_eq!(
        check(&[h], "afani@player.test"),
        Ok("dkim=pass for player.test".into())
    );
}

#[test]
fn a_header_with_a_foreign_authserv_id_is_ignored() {
    let forged = "evil.example; dkim=pass header.d=player.test";
    let err = check(&[forged], "afani@player.test").unwrap_err();
    assert!(
        err.contains("no Authentication-Results header from mx.game.test"),
        "{err}"
    );
    // Ours says fail; a foreign pass above it changes nothing.
    let ours = "mx.game.test; dkim=fail header.d=player.test";
    let err = check(&[forged, ours], "afani@player.test").unwrap_err();
    assert!(err.contains("dkim=fail for player.test"), "{err}");
}

#[test]
fn a_misaligned_signing_domain_does_not_count() {
    let h = "mx.game.test; dkim=pass header.d=attacker.test";
    let err = check(&[h], "afani@player.test").unwrap_err();
    assert!(
        err.contains("no DKIM or DMARC pass aligned with player.test"),
        "{err}"
    );
    assert!(err.contains("dkim=pass for attacker.test"), "{err}");
    // Look-alike suffixes are not subdomains.
    assert!(!aligned("yer.test", "afani@player.test"));
    assert!(!aligned("test", "afani@player.test"));
    assert!(aligned("player.test", "a@mail.player.test"));
    assert!(aligned("mail.player.test", "a@player.test"));
    assert!(aligned("PLAYER.test.", "a@player.TEST"));
}

#[test]
fn a_dmarc_pass_for_the_from_domain_counts_and_for_another_does_not() {
    let h = "mx.game.test; spf=pass smtp.mailfrom=player.test; dmarc=pass (p=reject) header.from=player.test";
    assert_eq!(
        check(&[h], "afani@player.test"),
        Ok("dmarc=pass for player.test".into())
    );
    let other = "mx.game.test; dmarc=pass header.from=other.test";
    assert!(check(&[other], "afani@player.test").is_err());
}

#[test]
fn header_i_counts_when_header_d_is_missing() {
    let h = "mx.game.test 1; dkim=pass header.i=afani@player.test";
    assert!(check(&[h], "afani@player.test").is_ok());
}

#[test]
fn comments_and_quotes_are_read_per_rfc_8601() {
    let h = "mx.game.test (our (nested \\) comment; dkim=pass) server); \
             dkim (c) = (c) pass (a; b=c) header.d (x) = player.test; \
             auth=pass smtp.auth=\"a;b=c\"";
    let r = parse_auth_results(h).unwrap();
    assert_eq!(r.authserv_id, "mx.game.test");
    assert_eq!(r.results.len(), 2);
    assert_eq!(r.results[0].method, "dkim");
    assert_eq!(r.results[0].result, "pass");
    assert_eq!(
        r.results[0].props,
        vec![("header.d".into(), "player.test".into())]
    );
    assert_eq!(
        r.results[1].props,
        vec![("smtp.auth".into(), "a;b=c".into())]
    );
    // A pass inside a comment is no pass.
    let tricky = "mx.game.test; dkim=fail (dkim=pass header.d=player.test) header.d=player.test";
    assert!(check(&[tricky], "afani@player.test").is_err());
}

#[test]
fn a_quoted_authserv_id_and_none_are_understood() {
    let r = parse_auth_results("\"mx.game.test\"; none").unwrap();
    assert_eq!(r.authserv_id, "mx.game.test");
    assert!(r.results.is_empty());
}

#[test]
fn broken_or_huge_headers_count_for_nothing() {
    assert_eq!(
        parse_auth_results("mx.game.test; dkim=pass (unterminated"),
        None
    );
    assert_eq!(parse_auth_results("\"mx.game.test; dkim=pass"), None);
    assert_eq!(parse_auth_results(""), None);
    let huge = format!(
        "mx.game.test; dkim=pass header.d=player.test x.y={}",
        "a".repeat(MAX_HEADER_BYTES)
    );
    assert!(check(&[&huge], "afani@player.test").is_err());
    // Deep nesting is read in one pass without recursion.
    let deep = format!(
        "mx.game.test {}{}; dkim=pass header.d=player.test",
        "(".repeat(3000),
        ")".repeat(3000)
    );
    assert!(check(&[&deep], "afani@player.test").is_ok());
    // Results after a syntax error are not read.
    let bad = "mx.game.test; dkim=; dkim=pass header.d=player.test";
    assert!(check(&[bad], "afani@player.test").is_err());
}

#[test]
fn no_from_address_never_passes() {
    let h = vec!["mx.game.test; dkim=pass header.d=player.test".to_string()];
    assert!(dkim_check(&h, ID, None).is_err());
}

#[test]
fn new_tokens_are_ten_base32_characters() {
    let a = new_token([0; 7]);
    assert_eq!(a, "AAAAAAAAAA");
    let b = new_token([0xff, 1, 2, 3, 4, 5, 6]);
    assert_eq!(b.len(), TOKEN_LEN);
    assert!(b.bytes().all(|c| BASE32.contains(&c)));
    assert_ne!(b, new_token([0xff, 1, 2, 3, 4, 5, 7]));
}

#[test]
fn tokens_compare_ignoring_case_only() {
    assert!(tokens_equal("abcde23456", "ABCDE23456"));
    assert!(!tokens_equal("ABCDE23457", "ABCDE23456"));
    assert!(!tokens_equal("ABCDE2345", "ABCDE23456"));
}

const T: &str = "ABCDE23456";

#[test]
fn a_token_in_the_subject_is_cut_out() {
    let s = take_token(
        Some("[abcde23456] Afani sends an envoy to Borland"),
        "Hello",
        T,
    )
    .unwrap();
    assert_eq!(
        s.subject.as_deref(),
        Some("Afani sends an envoy to Borland")
    );
    assert_eq!(s.text, "Hello");
    let s = take_token(Some("Afani form [x] [ ABCDE23456 ]"), "", T).unwrap();
    assert_eq!(s.subject.as_deref(), Some("Afani form [x]"));
    assert!(take_token(Some("Afani form [ABCDE23457]"), "", T).is_none());
    assert!(
        take_token(Some("Afani form ABCDE23456"), "", T).is_none(),
        "the subject needs brackets"
    );
}

#[test]
fn a_token_alone_on_the_first_line_is_cut_with_its_line() {
    let s = take_token(Some("Afani form"), "\n  ABCDE23456\n\nOrders\nmore", T).unwrap();
    assert_eq!(s.text, "Orders\nmore");
    let s = take_token(None, "[ABCDE23456]\r\nHello", T).unwrap();
    assert_eq!(s.text, "Hello");
    let s = take_token(None, "Nyckel: abcde23456\nHej", T).unwrap();
    assert_eq!(s.text, "Hej");
    let s = take_token(None, "ABCDE23456 Greetings, Borland!\nBye", T).unwrap();
    assert_eq!(s.text, "Greetings, Borland!\nBye");
}

#[test]
fn a_token_elsewhere_in_the_body_does_not_count() {
    assert!(take_token(None, "Hello\nABCDE23456", T).is_none());
    assert!(take_token(None, "XABCDE23456 hello", T).is_none());
    assert!(take_token(None, "", T).is_none());
    assert!(take_token(Some("[ABCDE23456]"), "x", "SHORT").is_none());
}

#[test]
fn a_hostile_subject_or_body_is_scanned_in_linear_time() {
    let subject = format!("{}{}", "[".repeat(2_000_000), "] x");
    let started = std::time::Instant::now();
    assert!(take_token(Some(&subject), &"A".repeat(2_000_000), T).is_none());
    let with = format!("{}[ABCDE23456]", "[".repeat(1_000_000));
    assert!(take_token(Some(&with), "", T).is_some());
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // Multi-byte characters next to brackets never split a character.
    assert!(take_token(Some("[åäö] [ÅÄÖABCDE2345]"), "ö[ABCD", T).is_none());
    let s = take_token(Some("[åäö]"), "ö[ABCDE23456]ö", T).unwrap();
    assert_eq!(s.text, "öö");
}

#[test]
fn a_token_tagged_k_in_the_subject_counts_and_is_cut_out() {
    let token = "K7QM2XWA4D";
    for subject in [
        "Re: Kaldor helgformulär [k:K7QM2XWA4D]",
        "Re: Kaldor helgformulär [K: k7qm2xwa4d ]",
        "[k:K7QM2XWA4D] Re: Kaldor helgformulär",
    ] {
        let s = take_token(Some(subject), "> quoted", token).expect(subject);
        assert_eq!(
            s.subject.as_deref(),
            Some("Re: Kaldor helgformulär"),
            "{subject}"
        );
    }
    assert!(take_token(Some("Kaldor form [k:AAAAAAAAAA]"), "x", token).is_none());
    assert!(take_token(Some("Kaldor form [x:K7QM2XWA4D]"), "x", token).is_none());
}

#[test]
fn a_subject_is_tagged_once_with_the_realms_token_and_old_tags_go() {
    assert_eq!(
        tag_subject("Re: Kaldor form [k:AAAAAAAAAA]", Some("K7QM2XWA4D")),
        "Re: Kaldor form [k:K7QM2XWA4D]"
    );
    assert_eq!(
        tag_subject("Kaldor [k:AAAAAAAAAA] form [x] [k:", None),
        "Kaldor form [x] [k:"
    );
    assert_eq!(tag_subject("", Some("K7QM2XWA4D")), "[k:K7QM2XWA4D]");
    // Linear on a hostile subject.
    let huge = "[k:".repeat(100_000);
    assert_eq!(tag_subject(&huge, None), huge);
}

#[test]
fn a_token_quoted_in_a_reply_is_scrubbed_from_the_text() {
    let token = "K7QM2XWA4D";
    let text = "Peace!\n\nFrom: sl@game.test\nSubject: Envoy from Afani [k:k7qm2xwa4d]\n\
                > [K7QM2XWA4D] and K7QM2XWA4D; XK7QM2XWA4D stays";
    let out = scrub_token(text, token);
    assert!(!out.to_uppercase().contains(&format!(" {token}")), "{out}");
    assert!(!out.contains("[k:"), "{out}");
    assert!(out.contains("XK7QM2XWA4D stays"), "{out}");
    assert!(out.starts_with("Peace!"), "{out}");
    assert_eq!(scrub_token("nothing here", token), "nothing here");
}

/// The English token note quotes an example subject in curly quotes (`“[TOKEN] …`), and
/// a player's Reply to the opening form quotes the note: the scrub must not cut inside
/// the quote mark's bytes (it once panicked there and parked the player's form).
#[test]
fn a_token_after_a_curly_quote_in_a_quoted_note_is_scrubbed_without_a_panic() {
    let token = "K7QM2XWA4D";
    for text in [
        "> for example “[K7QM2XWA4D] Afani form”, or alone",
        "> till exempel «[K7QM2XWA4D] Afani formulär»",
        "“[k:K7QM2XWA4D]” and ”[K7QM2XWA4D]",
    ] {
        let out = scrub_token(text, token);
        assert!(!out.to_uppercase().contains(token), "{out}");
    }
}
