//! The GM's desk over real HTTP on loopback: login (cookie attributes, wrong passwords,
//! the rate limit, expiry, logout), the review queue's actions doing what the `gm`
//! commands do, the message page, the audit log, and `pbemd gm passwd`.

mod common;
#[path = "desk_common/mod.rs"]
mod desk;

use desk::{form, http, login, queue_with_flash, try_login, Desk, PASSWORD};
use pbemd::store::messages::state;

#[tokio::test]
async fn gm_login_sets_a_strict_http_only_expiring_cookie_and_a_wrong_password_gets_401() {
    let d = Desk::start("").await;
    let r = try_login(d.addr, PASSWORD, &[]).await;
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), Some("/gm"));
    let c = r.set_cookie("pbemd_gm").unwrap();
    for attr in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"] {
        assert!(c.contains(attr), "{c}");
    }
    assert!(!c.contains("Secure"), "plain HTTP from no proxy: {c}");
    let wrong = try_login(d.addr, "fel lösenord", &[]).await;
    assert_eq!(wrong.status, 401);
    assert!(wrong.body.contains("Wrong password"), "{}", wrong.body);
    assert!(wrong.set_cookie("pbemd_gm").is_none());
    let huge = "å".repeat(100_000);
    assert_eq!(
        try_login(d.addr, &huge, &[]).await.status,
        401,
        "too long: a failure"
    );
    let ok = d.audited("gm_login").await;
    let failed = d.audited("gm_login_failed").await;
    assert_eq!((ok.len(), failed.len()), (1, 2));
    assert!(
        failed[0].detail.contains("127.0.0.1"),
        "{}",
        failed[0].detail
    );
    let mut c = d.app.store.conn().await.unwrap();
    let all = pbemd::store::events::filtered(&mut c, None, None)
        .await
        .unwrap();
    assert!(
        all.iter()
            .all(|e| !e.detail.contains("fel lösenord") && !e.detail.contains("batteri")),
        "no password in the audit log"
    );
}

#[tokio::test]
async fn the_cookie_is_secure_behind_a_trusted_tls_proxy_or_when_always_is_set() {
    let d = Desk::start("").await;
    let proxied = [
        ("X-Forwarded-Proto", "https"),
        ("X-Forwarded-For", "198.51.100.4"),
    ];
    let r = try_login(d.addr, PASSWORD, &proxied).await;
    assert!(r.set_cookie("pbemd_gm").unwrap().contains("; Secure"));
    assert!(d.audited("gm_login").await[0]
        .detail
        .contains("198.51.100.4"));
    let d = Desk::start("  secure_cookies: always\n").await;
    let r = try_login(d.addr, PASSWORD, &[]).await;
    assert!(r.set_cookie("pbemd_gm").unwrap().contains("; Secure"));
    let d = Desk::start("  trusted_proxies: [10.9.9.9]\n").await;
    let r = try_login(d.addr, PASSWORD, &proxied).await;
    assert!(
        !r.set_cookie("pbemd_gm").unwrap().contains("Secure"),
        "loopback is no longer trusted: its X-Forwarded-Proto is ignored"
    );
    assert!(d.audited("gm_login").await[0].detail.contains("127.0.0.1"));
}

#[tokio::test]
async fn in_auto_mode_an_https_public_url_makes_the_desks_cookies_secure_as_the_realms() {
    for (http_lines, secure) in [
        ("  public_url: \"https://game.example.org\"\n", true),
        ("  public_url: \"http://game.example.org\"\n", false),
        (
            "  public_url: \"https://game.example.org\"\n  secure_cookies: never\n",
            false,
        ),
    ] {
        let d = Desk::start(http_lines).await;
        let page = http(d.addr, "GET", "/gm/login", "", None, &[]).await;
        let pre = page.set_cookie("pbemd_login").unwrap();
        assert_eq!(pre.contains("; Secure"), secure, "{http_lines}: {pre}");
        let r = try_login(d.addr, PASSWORD, &[]).await;
        let c = r.set_cookie("pbemd_gm").unwrap();
        assert_eq!(c.contains("; Secure"), secure, "{http_lines}: {c}");
        assert!(
            c.contains("SameSite=Strict") && c.contains("HttpOnly"),
            "{c}"
        );
        let gm = format!("pbemd_gm={}", r.cookie("pbemd_gm").unwrap());
        let q = http(d.addr, "GET", "/gm/logout", &gm, None, &[]).await;
        let body = form(&[("csrf", &q.csrf())]);
        let out = http(d.addr, "POST", "/gm/logout", &gm, Some(&body), &[]).await;
        let clear = out.set_cookie("pbemd_gm").unwrap();
        assert_eq!(clear.contains("; Secure"), secure, "{clear}");
    }
}

#[tokio::test]
async fn the_sixth_failed_login_in_15_minutes_is_refused_with_429_without_checking_the_password() {
    let d = Desk::start("").await;
    let from = |ip: &'static str| [("X-Forwarded-For", ip)];
    for _ in 0..5 {
        assert_eq!(
            try_login(d.addr, "gissning", &from("198.51.100.1"))
                .await
                .status,
            401
        );
    }
    let r = try_login(d.addr, PASSWORD, &from("198.51.100.1")).await;
    assert_eq!(r.status, 429, "even the right password: {}", r.body);
    assert!(r.set_cookie("pbemd_gm").is_none());
    assert_eq!(
        try_login(d.addr, PASSWORD, &from("198.51.100.2"))
            .await
            .status,
        303,
        "another client is not blocked"
    );
    assert_eq!(d.audited("gm_login_refused").await.len(), 1);
    d.clock.set(common::at("2026-11-24T09:15:30+01:00"));
    let r = try_login(d.addr, PASSWORD, &from("198.51.100.1")).await;
    assert_eq!(r.status, 303, "15 minutes later the client may try again");
}

#[tokio::test]
async fn fifty_failed_logins_from_anywhere_block_every_client_for_the_window() {
    let d = Desk::start("").await;
    for n in 0..50 {
        let ip = format!("198.51.100.{}", n / 5 + 10);
        let r = try_login(d.addr, "gissning", &[("X-Forwarded-For", &ip)]).await;
        assert_eq!(r.status, 401, "try {n}");
    }
    let r = try_login(d.addr, PASSWORD, &[("X-Forwarded-For", "203.0.113.77")]).await;
    assert_eq!(r.status, 429, "a fresh client meets the global cap");
}

#[tokio::test]
async fn without_a_password_hash_the_login_page_says_the_desk_is_disabled() {
    let d = Desk::start_with(None, "", "", false).await;
    let r = http(d.addr, "GET", "/gm/login", "", None, &[]).await;
    assert_eq!(r.status, 403);
    assert!(r.body.contains("pbemd gm passwd"), "{}", r.body);
    let r = http(d.addr, "POST", "/gm/login", "", Some("password=x"), &[]).await;
    assert_eq!(r.status, 403);
    assert!(r.set_cookie("pbemd_gm").is_none());
}

#[tokio::test]
async fn a_login_post_without_its_form_token_is_refused_with_403() {
    let d = Desk::start("").await;
    let body = form(&[("password", PASSWORD)]);
    let r = http(d.addr, "POST", "/gm/login", "", Some(&body), &[]).await;
    assert_eq!(r.status, 403);
    assert!(d.audited("gm_login").await.is_empty());
}

#[tokio::test]
async fn a_session_expires_after_session_hours_and_logout_ends_it() {
    let d = Desk::start("  session_hours: 2\n").await;
    let gm = login(d.addr).await;
    let q = http(d.addr, "GET", "/gm/queue", &gm, None, &[]).await;
    assert_eq!(q.status, 200);
    d.clock.set(common::at("2026-11-24T11:00:01+01:00"));
    let q = http(d.addr, "GET", "/gm/queue", &gm, None, &[]).await;
    assert_eq!((q.status, q.header("location")), (303, Some("/gm/login")));
    let gm = login(d.addr).await;
    let page = http(d.addr, "GET", "/gm/logout", &gm, None, &[]).await;
    let no_token = http(d.addr, "POST", "/gm/logout", &gm, Some(""), &[]).await;
    assert_eq!(no_token.status, 403);
    let body = form(&[("csrf", &page.csrf())]);
    let out = http(d.addr, "POST", "/gm/logout", &gm, Some(&body), &[]).await;
    assert_eq!(out.status, 303);
    assert!(out.set_cookie("pbemd_gm").unwrap().contains("Max-Age=0"));
    d.clock.set(common::at("2026-11-24T11:00:02+01:00"));
    let q = http(d.addr, "GET", "/gm/queue", &gm, None, &[]).await;
    assert_eq!(q.status, 303, "the old cookie no longer works");
    assert_eq!(d.audited("gm_logout").await.len(), 1);
}

#[tokio::test]
async fn approving_a_held_envoy_on_the_queue_page_delivers_it_like_gm_approve() {
    let d = Desk::start("").await;
    let m = d.held_envoy("Fred och handel").await;
    let gm = login(d.addr).await;
    let q = http(d.addr, "GET", "/gm/queue", &gm, None, &[]).await;
    assert!(
        q.body.contains(&format!("/gm/queue/{}/approve", m.id)),
        "{}",
        q.body
    );
    assert!(q.body.contains("Genogien → Afani"));
    let body = form(&[("csrf", &q.csrf()), ("now", "1")]);
    let path = format!("/gm/queue/{}/approve", m.id);
    let r = http(d.addr, "POST", &path, &gm, Some(&body), &[]).await;
    assert_eq!((r.status, r.header("location")), (303, Some("/gm/queue")));
    let q = queue_with_flash(d.addr, &gm, &r).await;
    assert!(
        q.body.contains("approved; the courier decided 1"),
        "{}",
        q.body
    );
    assert!(q.body.contains("queue-empty"));
    assert!(d
        .outbox()
        .iter()
        .any(|s| s.to_is("afani@game.test") && s.text.contains("Fred och handel")));
    assert_eq!(d.audited("gm_approved").await.len(), 1);
    assert_eq!(d.in_state(state::ROUTED).await.len(), 1);
}

async fn post_action(d: &Desk, gm: &str, id: i64, action: &str, extra: &[(&str, &str)]) -> String {
    let q = http(d.addr, "GET", "/gm/queue", gm, None, &[]).await;
    let csrf = q.csrf();
    let mut pairs = vec![("csrf", csrf.as_str())];
    pairs.extend_from_slice(extra);
    let path = format!("/gm/queue/{id}/{action}");
    let r = http(d.addr, "POST", &path, gm, Some(&form(&pairs)), &[]).await;
    assert_eq!(r.status, 303, "{action}: {}", r.body);
    let page = queue_with_flash(d.addr, gm, &r).await;
    let at = page.body.find("id=\"flash\">").expect("a flash message") + 11;
    page.body[at..].split('<').next().unwrap().to_string()
}

#[tokio::test]
async fn hold_edit_reject_and_retry_on_the_desk_do_what_the_gm_commands_do() {
    let d = Desk::start_with(None, "courier: {mode: batches}\n", "", true).await;
    d.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "första",
    );
    d.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Kaldor",
        "andra",
    );
    d.tick("2026-11-24T10:00:00+01:00").await;
    let queued = d.in_state(state::QUEUED).await;
    assert_eq!(queued.len(), 2);
    let (a, b) = (queued[0].id, queued[1].id);
    let gm = login(d.addr).await;
    assert!(post_action(&d, &gm, a, "hold", &[]).await.contains("held"));
    let listed = std::process::Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(["--config", d.config_path().to_str().unwrap(), "gm", "queue"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout).to_string();
    assert!(
        listed
            .lines()
            .any(|l| l.trim_start().starts_with(&format!("{a}  held"))),
        "`gm queue` shows what the desk did: {listed}"
    );
    assert!(post_action(&d, &gm, a, "edit", &[("text", "rättad")])
        .await
        .contains("edited"));
    assert_eq!(d.in_state(state::HELD).await[0].body, "rättad");
    let said = post_action(&d, &gm, a, "reject", &[("reason", "")]).await;
    assert!(said.contains("give the sender a reason"), "{said}");
    let said = post_action(&d, &gm, a, "reject", &[("reason", "Inga hot.")]).await;
    assert!(said.contains("rejected"), "{said}");
    let said = post_action(&d, &gm, a, "hold", &[]).await;
    assert!(
        said.contains("is refused; only queued"),
        "the app's refusal is shown: {said}"
    );
    assert!(d
        .outbox()
        .iter()
        .any(|s| s.to_is("genogien@game.test") && s.text.contains("Inga hot.")));
    {
        let mut c = d.app.store.conn().await.unwrap();
        let at = pbemd::clock::to_ms(pbemd::clock::Clock::now(&*d.clock));
        pbemd::store::messages::set_state(&mut c, b, state::PARKED, Some("boom"), at)
            .await
            .unwrap();
    }
    let said = post_action(&d, &gm, b, "retry", &[]).await;
    assert!(said.contains("tried again"), "{said}");
    assert_eq!(d.in_state(state::QUEUED).await[0].id, b);
    for kind in ["gm_held", "gm_edited", "gm_rejected", "gm_retried"] {
        assert_eq!(d.audited(kind).await.len(), 1, "{kind}");
    }
}

#[tokio::test]
async fn a_queue_action_without_the_csrf_token_is_refused_with_403_and_changes_nothing() {
    let d = Desk::start("").await;
    let m = d.held_envoy("vänta").await;
    let gm = login(d.addr).await;
    let path = format!("/gm/queue/{}/approve", m.id);
    let r = http(d.addr, "POST", &path, &gm, Some("now=1"), &[]).await;
    assert_eq!(r.status, 403);
    let r = http(d.addr, "POST", &path, &gm, Some("now=1&csrf=forged"), &[]).await;
    assert_eq!(r.status, 403);
    let r = http(d.addr, "POST", &path, "", Some("now=1"), &[]).await;
    assert_eq!((r.status, r.header("location")), (303, Some("/gm/login")));
    assert_eq!(d.in_state(state::HELD).await.len(), 1);
    assert!(d.audited("gm_approved").await.is_empty());
}

#[tokio::test]
async fn the_message_page_shows_the_text_and_raw_mail_escaped_and_what_happened() {
    let d = Desk::start("").await;
    let m = d.held_envoy("<b>fet</b> & \"citat\"").await;
    let gm = login(d.addr).await;
    let path = format!("/gm/message/{}", m.id);
    let r = http(d.addr, "GET", &path, &gm, None, &[]).await;
    assert_eq!(r.status, 200);
    assert!(
        r.body
            .contains("&lt;b&gt;fet&lt;/b&gt; &amp; &quot;citat&quot;"),
        "{}",
        r.body
    );
    assert!(!r.body.contains("<b>fet"));
    assert!(r.body.contains("Raw mail") && r.body.contains("Message-ID: &lt;d0@players.test&gt;"));
    assert!(
        r.body.contains("courier_held") || r.body.contains("gm_queued"),
        "{}",
        r.body
    );
    let body = form(&[("csrf", &r.csrf()), ("now", "1"), ("back", "message")]);
    let approve = format!("/gm/queue/{}/approve", m.id);
    let r = http(d.addr, "POST", &approve, &gm, Some(&body), &[]).await;
    assert_eq!(r.header("location"), Some(path.as_str()));
    let r = http(d.addr, "GET", &path, &gm, None, &[]).await;
    assert!(
        r.body.contains("gm_approved") && r.body.contains(">courier<"),
        "{}",
        r.body
    );
    let r = http(d.addr, "GET", "/gm/message/999999", &gm, None, &[]).await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn the_audit_log_filters_by_realm_round_and_kind_newest_first_and_pages() {
    let d = Desk::start("").await;
    d.held_envoy("ett").await;
    let gm = login(d.addr).await;
    for _ in 0..3 {
        try_login(d.addr, "fel", &[]).await;
    }
    let r = http(
        d.addr,
        "GET",
        "/gm/audit?kind=gm_login_failed",
        &gm,
        None,
        &[],
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body.matches("<td>gm_login_failed</td>").count(),
        3,
        "{}",
        r.body
    );
    assert!(!r.body.contains("<td>gm_login</td>"));
    let r = http(
        d.addr,
        "GET",
        "/gm/audit?realm=Genogien&round=1",
        &gm,
        None,
        &[],
    )
    .await;
    assert!(r.body.contains("<td>Genogien</td>"));
    assert!(!r.body.contains("<td>gm_login_failed</td>"));
    let r = http(d.addr, "GET", "/gm/audit", &gm, None, &[]).await;
    let newest = r.body.find("<td>gm_login_failed</td>").unwrap();
    let older = r.body.find("<td>game_started</td>").unwrap();
    assert!(newest < older, "newest first");
    let r = http(
        d.addr,
        "GET",
        "/gm/audit?round=x&kind=%3Cscript%3E",
        &gm,
        None,
        &[],
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("is not a number") && !r.body.contains("<script>"));
    let mut c = d.app.store.conn().await.unwrap();
    for n in 0..120 {
        pbemd::store::events::log(&mut c, n, 1, "filler", None, None, "")
            .await
            .unwrap();
    }
    drop(c);
    let r = http(d.addr, "GET", "/gm/audit?kind=filler", &gm, None, &[]).await;
    assert_eq!(r.body.matches("<td>filler</td>").count(), 100);
    let at = r.body.find("id=\"older\" href=\"").unwrap() + 17;
    let next = r.body[at..]
        .split('"')
        .next()
        .unwrap()
        .replace("&amp;", "&");
    let r = http(d.addr, "GET", &next, &gm, None, &[]).await;
    assert_eq!(r.body.matches("<td>filler</td>").count(), 20, "{next}");
    assert!(!r.body.contains("id=\"older\""));
}

#[tokio::test]
async fn gm_passwd_writes_an_argon2_hash_that_logs_in_and_keeps_the_configs_comments() {
    let d = Desk::start_with(None, "", "", false).await;
    let cfg = d.config_path();
    let now = pbemd::clock::Clock::now(&*d.clock).timestamp();
    let old = pbemd::web::site::auth::gm_cookie(&d.app, now)
        .await
        .unwrap();
    let old = format!("pbemd_gm={old}");
    assert_eq!(
        http(d.addr, "GET", "/gm/queue", &old, None, &[])
            .await
            .status,
        200
    );
    let before = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(
        &cfg,
        before.replace("http:\n", "# the desk\nhttp:   # web\n"),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(["--config", cfg.to_str().unwrap(), "gm", "passwd"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(b"nytt hemligt ord\n")?;
            c.wait_with_output()
        })
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("nytt hemligt ord"));
    let text = std::fs::read_to_string(&cfg).unwrap();
    assert!(
        text.contains("# the desk\nhttp:   # web\n  gm_password_hash: \"$argon2id$"),
        "{text}"
    );
    assert!(text.contains("# pbemd game configuration"), "comments stay");
    assert!(!text.contains("nytt hemligt ord"));
    let r = http(d.addr, "GET", "/gm/queue", &old, None, &[]).await;
    assert_eq!(r.status, 303, "a new password ends the old sessions");
    assert_eq!(d.audited("gm_password_set").await.len(), 1);
    let loaded = pbemd::config::Config::load(&cfg).unwrap();
    let hash = loaded.http.gm_password_hash.unwrap();
    assert!(pbemd::app::desk::password_matches(
        &hash,
        "nytt hemligt ord"
    ));
    let short = std::process::Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(["--config", cfg.to_str().unwrap(), "gm", "passwd"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!short.status.success(), "an empty password is refused");
    assert_eq!(
        std::fs::read_to_string(&cfg).unwrap(),
        text,
        "and nothing changed"
    );
}

#[tokio::test]
async fn on_postgres_failed_logins_are_counted_and_the_audit_log_pages() {
    let Some(url) = common::pg_database_url().await else {
        return;
    };
    let d = Desk::start_with(Some(&url), "courier: {review: all}\n", "", true).await;
    let m = d.held_envoy("på postgres").await;
    for _ in 0..5 {
        assert_eq!(try_login(d.addr, "fel", &[]).await.status, 401);
    }
    assert_eq!(try_login(d.addr, PASSWORD, &[]).await.status, 429);
    d.clock.set(common::at("2026-11-24T10:20:00+01:00"));
    let gm = login(d.addr).await;
    let r = http(
        d.addr,
        "GET",
        "/gm/audit?kind=gm_login_failed&round=1",
        &gm,
        None,
        &[],
    )
    .await;
    assert_eq!(
        r.body.matches("<td>gm_login_failed</td>").count(),
        5,
        "{}",
        r.body
    );
    let r = http(
        d.addr,
        "GET",
        &format!("/gm/message/{}", m.id),
        &gm,
        None,
        &[],
    )
    .await;
    assert!(r.body.contains("på postgres") && r.body.contains("What happened"));
}

/// `pbemd --config <the desk's game> ARGS…` through the binary.
fn pbemd(d: &Desk, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(["--config", d.config_path().to_str().unwrap()])
        .args(args)
        .output()
        .unwrap()
}

/// Queue a plain mail to `to` straight into the outbox (as any reply would be queued);
/// its row id and raw bytes.
async fn queued_mail(d: &Desk, n: u32, to: &str) -> (i64, Vec<u8>) {
    let mid = format!("<retry{n}@game.test>");
    let raw = format!(
        "From: sl@game.test\r\nTo: {to}\r\nSubject: Prov {n}\r\nMessage-ID: {mid}\r\n\
         Date: Tue, 24 Nov 2026 09:00:00 +0100\r\n\r\nbrev {n}\r\n"
    )
    .into_bytes();
    let to = vec![to.to_string()];
    let key = format!("retry-test:{n}");
    let m = pbemd::store::outbox::NewOutgoing {
        dedup_key: &key,
        message_id: &mid,
        kind: "refusal",
        to_addrs: &to,
        from_addr: "sl@game.test",
        subject: "Prov",
        raw: &raw,
        kept: None,
        at: 1,
    };
    let mut c = d.app.store.conn().await.unwrap();
    (
        pbemd::store::outbox::enqueue(&mut c, &m).await.unwrap(),
        raw,
    )
}

async fn outbox_row(d: &Desk, id: i64) -> pbemd::store::outbox::OutRow {
    let mut c = d.app.store.conn().await.unwrap();
    pbemd::store::outbox::get(&mut c, id)
        .await
        .unwrap()
        .unwrap()
}

/// Whether the outbox Maildir holds a mail with exactly these bytes.
fn delivered(d: &Desk, raw: &[u8]) -> bool {
    let dir = d.dir.path().join("g").join("outbox").join("new");
    std::fs::read_dir(dir)
        .unwrap()
        .any(|e| std::fs::read(e.unwrap().path()).unwrap() == raw)
}

#[tokio::test]
async fn undelivered_mail_is_listed_and_sent_again_by_gm_retry_mail_and_the_desk_button() {
    let d = Desk::start("").await;
    let far = pbemd::clock::to_ms(common::at("2026-12-24T09:00:00+01:00"));
    let (failed, failed_raw) = queued_mail(&d, 1, "afani@game.test").await;
    let (waiting, waiting_raw) = queued_mail(&d, 2, "kaldor@game.test").await;
    let (sent, _) = queued_mail(&d, 3, "ostvik@game.test").await;
    let (again, again_raw) = queued_mail(&d, 4, "mirandel@game.test").await;
    {
        let mut c = d.app.store.conn().await.unwrap();
        use pbemd::store::outbox::{mark_attempt_failed, mark_sent};
        mark_attempt_failed(&mut c, failed, "550 5.1.1 no such user", far, true)
            .await
            .unwrap();
        mark_attempt_failed(&mut c, waiting, "421 try later", far, false)
            .await
            .unwrap();
        mark_sent(&mut c, sent, 2).await.unwrap();
        mark_attempt_failed(&mut c, again, "554 rejected", far, true)
            .await
            .unwrap();
    }
    let gm = login(d.addr).await;
    let q = http(d.addr, "GET", "/gm/queue", &gm, None, &[]).await;
    let table = q
        .body
        .split("<div id=\"undelivered\">")
        .nth(1)
        .expect(&q.body);
    assert!(table.contains("Outgoing mail not yet delivered"), "{table}");
    for (id, state, error) in [
        (failed, "failed", "550 5.1.1 no such user"),
        (waiting, "pending", "421 try later"),
    ] {
        assert!(
            table.contains(&format!("<td>{id}</td><td>{state}</td><td>1</td>")),
            "{id}: {table}"
        );
        assert!(table.contains(error), "{table}");
    }
    assert!(
        table.contains(&format!("action=\"/gm/outbox/{failed}/retry\"")),
        "{table}"
    );
    assert!(
        !table.contains(&format!("/gm/outbox/{waiting}/retry")),
        "a mail waiting for its next try may be in a sender's hands: no button ({table})"
    );
    assert!(table.contains("tried again by itself"), "{table}");
    assert!(
        !table.contains(&format!("/gm/outbox/{sent}/retry")),
        "{table}"
    );

    // Through the command line.
    let listed = String::from_utf8_lossy(&pbemd(&d, &["gm", "queue"]).stdout).to_string();
    assert!(listed.contains("`pbemd gm retry-mail ID`"), "{listed}");
    assert!(
        listed.contains(&format!("outbox {failed:>5}  failed")),
        "{listed}"
    );
    let out = pbemd(&d, &["gm", "retry-mail", &failed.to_string()]);
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{said}");
    assert_eq!(
        said.trim(),
        format!("outbox {failed} sent to afani@game.test")
    );
    assert!(delivered(&d, &failed_raw), "the very same bytes go out");
    assert_eq!(outbox_row(&d, failed).await.state, "sent");
    for (id, why) in [
        (sent, "is sent after 1 attempt(s); only failed mail"),
        (failed, "is sent"),
        (waiting, "is tried again by itself"),
        (999_999, "no outgoing mail 999999"),
    ] {
        let out = pbemd(&d, &["gm", "retry-mail", &id.to_string()]);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!out.status.success() && err.contains(why), "{id}: {err}");
    }
    let audited = d.audited("gm_mail_retried").await;
    assert_eq!(audited.len(), 1);
    assert!(
        audited[0].detail.contains("550 5.1.1 no such user")
            && audited[0]
                .detail
                .contains(&format!("\"outbox_id\":{failed}")),
        "{}",
        audited[0].detail
    );

    // Through the desk: refused without the session's token, done with it.
    let path = format!("/gm/outbox/{again}/retry");
    for body in ["", "csrf=forged"] {
        let r = http(d.addr, "POST", &path, &gm, Some(body), &[]).await;
        assert_eq!(r.status, 403, "{body:?}");
    }
    let anon = http(d.addr, "POST", &path, "", Some("csrf=x"), &[]).await;
    assert_eq!(
        (anon.status, anon.header("location")),
        (303, Some("/gm/login"))
    );
    let row = outbox_row(&d, again).await;
    assert_eq!((row.state.as_str(), row.attempts), ("failed", 1));
    assert!(!delivered(&d, &again_raw), "nothing sent without the token");
    assert_eq!(d.audited("gm_mail_retried").await.len(), 1);
    let q = http(d.addr, "GET", "/gm/queue", &gm, None, &[]).await;
    let r = http(
        d.addr,
        "POST",
        &path,
        &gm,
        Some(&form(&[("csrf", &q.csrf())])),
        &[],
    )
    .await;
    assert_eq!((r.status, r.header("location")), (303, Some("/gm/queue")));
    let q = queue_with_flash(d.addr, &gm, &r).await;
    assert!(
        q.body
            .contains(&format!("outbox {again} sent to mirandel@game.test")),
        "{}",
        q.body
    );
    assert!(delivered(&d, &again_raw));
    assert_eq!(outbox_row(&d, again).await.state, "sent");
    assert!(
        !q.body.contains(&format!("<td>{again}</td>")),
        "no longer listed: {}",
        q.body
    );
    assert!(
        !delivered(&d, &waiting_raw),
        "the waiting mail keeps its own time"
    );
    assert_eq!(d.audited("gm_mail_retried").await.len(), 2);
}

#[tokio::test]
async fn refused_messages_show_only_with_all_and_held_replies_are_released_from_the_queue() {
    let d = Desk::start_with(
        None,
        "courier: {review: all}\nlimits: {max_replies_per_hour: 1}\n",
        "",
        true,
    )
    .await;
    let m = d.held_envoy("hot").await;
    let gm = login(d.addr).await;
    assert!(post_action(&d, &gm, m.id, "reject", &[("reason", "Nej.")])
        .await
        .contains("rejected"));
    let link = format!("<a href=\"/gm/message/{0}\">{0}</a>", m.id);
    let open = http(d.addr, "GET", "/gm/queue", &gm, None, &[]).await;
    assert!(
        !open.body.contains(&link) && open.body.contains("queue-empty"),
        "{}",
        open.body
    );
    assert!(open.body.contains("href=\"/gm/queue?all=1\""));
    let all = http(d.addr, "GET", "/gm/queue?all=1", &gm, None, &[]).await;
    assert!(
        all.body.contains(&format!("{link}</td><td>refused</td>")),
        "{}",
        all.body
    );
    assert!(all.body.contains("Hide refused messages"));
    // Kaldor's receipts beyond one an hour are held by flood control.
    for _ in 0..3 {
        d.send("kaldor@game.test", "Kaldor form", "BUY 1 spy");
    }
    d.tick("2026-11-24T11:00:00+01:00").await;
    let q = http(d.addr, "GET", "/gm/queue", &gm, None, &[]).await;
    let held = q
        .body
        .split("Replies held by flood control")
        .nth(1)
        .expect(&q.body);
    assert!(held.contains("<td>Kaldor</td><td>2</td>"), "{held}");
    assert!(held.contains("action=\"/gm/queue/release\""), "{held}");
    let before = d
        .outbox()
        .iter()
        .filter(|s| s.to_is("kaldor@game.test"))
        .count();
    let bare = form(&[("realm", "Kaldor")]);
    let r = http(d.addr, "POST", "/gm/queue/release", &gm, Some(&bare), &[]).await;
    assert_eq!(r.status, 403, "no token");
    assert!(d.audited("gm_release").await.is_empty());
    let body = form(&[("csrf", &q.csrf()), ("realm", "Kaldor")]);
    let r = http(d.addr, "POST", "/gm/queue/release", &gm, Some(&body), &[]).await;
    assert_eq!((r.status, r.header("location")), (303, Some("/gm/queue")));
    let after = queue_with_flash(d.addr, &gm, &r).await;
    assert!(
        after.body.contains("2 held replies to Kaldor released"),
        "{}",
        after.body
    );
    assert!(!after.body.contains("Replies held by flood control"));
    let now = d
        .outbox()
        .iter()
        .filter(|s| s.to_is("kaldor@game.test"))
        .count();
    assert_eq!(now, before + 2, "the held receipts went out");
    assert_eq!(d.audited("gm_release").await.len(), 1);
}
