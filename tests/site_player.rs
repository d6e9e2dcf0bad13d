//! docs/gm/web.md, the players' pages and the trade board: a realm's signed link (by mail and
//! on every Monday form), its own pages behind it (form, map, receipts, trade wishes)
//! and the public trade board, over real HTTP on loopback. The link mail is driven
//! through the real binary.

mod common;

#[path = "weekend_common/game_dir.rs"]
mod game_dir;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use pbemd::app::{site_links, App};
use pbemd::clock::FixedClock;
use pbemd::config::Config;
use pbemd::game::state::Dimension;
use pbemd::render::map::{self, Viewer};
use pbemd::transport::maildir::Maildir;
use pbemd::web::site::{auth, sign};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PUBLIC: &str = "https://game.example.org";
const TUESDAY: &str = "2026-11-24T09:00:00+01:00";
const SATURDAY: &str = "2026-11-28T10:00:00+01:00";
const DEADLINE: &str = "2026-11-29T15:00:00+01:00";
const MONDAY: &str = "2026-11-30T12:00:00+01:00";
const AFANI_FORM: &str = "Results and weekend form for Afani";
const GENOGIEN_FORM: &str = "Resultat och helgformulär för Genogien";

fn http_section(public: bool) -> String {
    if public {
        format!("http: {{listen: \"127.0.0.1:0\", public_url: \"{PUBLIC}/\"}}\n")
    } else {
        "http: {listen: \"127.0.0.1:0\"}\n".to_string()
    }
}

/// A game served over HTTP on loopback, driven in-process with a fixed clock.
struct Site {
    _dir: tempfile::TempDir,
    game: PathBuf,
    app: Arc<App>,
    clock: Arc<FixedClock>,
    inbox: Maildir,
    addr: SocketAddr,
    seq: std::sync::atomic::AtomicU64,
}

impl Site {
    async fn start(public: bool) -> Site {
        Site::start_on(public, None).await
    }

    /// On the database `db` (a `postgres://` URL) instead of the game's SQLite file.
    async fn start_on(public: bool, db: Option<&str>) -> Site {
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("g");
        let cfg_path = pbemd::app::setup::new_game_dir(&game, None).unwrap();
        let mut text = std::fs::read_to_string(&cfg_path).unwrap() + &http_section(public);
        if let Some(url) = db {
            text = text.replace("database: sqlite:pbemd.db", &format!("database: \"{url}\""));
        }
        std::fs::write(&cfg_path, text).unwrap();
        let cfg = Config::load(&cfg_path).unwrap();
        let clock = Arc::new(FixedClock::new(common::at(TUESDAY)));
        let app = Arc::new(App::open(cfg, clock.clone()).await.unwrap());
        pbemd::app::setup::init(&app, common::at(TUESDAY), false)
            .await
            .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = pbemd::web::router(app.clone());
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        let inbox = Maildir::open(&game.join("inbox")).unwrap();
        Site {
            _dir: dir,
            game,
            app,
            clock,
            inbox,
            addr,
            seq: Default::default(),
        }
    }

    fn send(&self, from: &str, subject: &str, body: &str) {
        let n = self.seq.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let raw = common::mail(from, subject, body, &format!("s{n}@players.test"));
        self.inbox.drop_in(n, &raw).unwrap();
    }

    async fn tick(&self, when: &str) {
        self.clock.set(common::at(when));
        pbemd::app::tick::tick(&self.app).await.unwrap();
    }

    /// Both realms have a form this round, and the Monday forms went out.
    async fn to_monday_with_forms(&self) {
        self.tick(DEADLINE).await;
        self.tick(MONDAY).await;
        self.send("afani@game.test", "Afani form", "BUY 1 spy");
        self.send("genogien@game.test", "Genogien formulär", "KÖP 1 spion");
        self.tick("2026-12-05T10:00:00+01:00").await;
    }

    fn outbox(&self) -> Vec<common::Sent> {
        let mut out: Vec<common::Sent> = std::fs::read_dir(self.game.join("outbox/new"))
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| common::Sent::parse(&std::fs::read(e.path()).unwrap()))
                    .collect()
            })
            .unwrap_or_default();
        out.sort_by_key(|m| m.date);
        out
    }

    async fn cookie(&self, realm: &str) -> String {
        let v = auth::realm_cookie(&self.app, realm, self.app.now().timestamp())
            .await
            .unwrap();
        format!("{}={v}", auth::REALM_COOKIE)
    }

    async fn get(&self, path: &str, cookie: Option<&str>) -> Resp {
        request(self.addr, "GET", path, cookie, None).await
    }

    /// A GET with one more header line (`Name: value`).
    async fn get_with(&self, path: &str, header: &str) -> Resp {
        let mut s = tokio::net::TcpStream::connect(self.addr).await.unwrap();
        let req =
            format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{header}\r\n\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).await.unwrap();
        let text = String::from_utf8_lossy(&raw).into_owned();
        let head = text
            .split_once("\r\n\r\n")
            .map_or(text.as_str(), |(h, _)| h);
        Resp {
            status: head.split_whitespace().nth(1).unwrap().parse().unwrap(),
            head: head.to_string(),
            body: String::new(),
        }
    }

    async fn post(&self, path: &str, cookie: Option<&str>, form: &str) -> Resp {
        request(self.addr, "POST", path, cookie, Some(form)).await
    }

    async fn state(&self) -> Arc<pbemd::game::GameState> {
        let mut c = self.app.store.conn().await.unwrap();
        self.app.state(&mut c).await.unwrap().1
    }

    async fn audit(&self, kind: &str) -> Vec<(Option<String>, String)> {
        let mut c = self.app.store.conn().await.unwrap();
        let rows = sqlx::query("SELECT realm, detail FROM events WHERE kind = $1 ORDER BY id")
            .bind(kind)
            .fetch_all(&mut *c)
            .await
            .unwrap();
        rows.iter()
            .map(|r| (sqlx::Row::get(r, 0), sqlx::Row::get(r, 1)))
            .collect()
    }
}

#[derive(Debug)]
struct Resp {
    status: u16,
    head: String,
    body: String,
}

impl Resp {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }
}

/// A bare HTTP/1.1 request.
async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    form: Option<&str>,
) -> Resp {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n");
    if let Some(c) = cookie {
        req.push_str(&format!("Cookie: {c}\r\n"));
    }
    let body = form.unwrap_or("");
    if form.is_some() {
        req.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    Resp {
        status: head.split_whitespace().nth(1).unwrap().parse().unwrap(),
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// The `?token=` of the first realm link in `text`.
fn token_in(text: &str) -> String {
    let at = text.find("/realm/login?token=").expect("a realm link") + 19;
    text[at..]
        .split(|c: char| c.is_whitespace())
        .next()
        .unwrap()
        .to_string()
}

fn csrf_in(page: &str) -> String {
    let at = page.find("name=\"csrf\" value=\"").expect("a CSRF field") + 19;
    page[at..].split('"').next().unwrap().to_string()
}

#[test]
fn a_link_request_is_answered_at_the_registered_addresses_only_in_the_realms_language_and_audited()
{
    let d = game_dir::Dir::start();
    let cfg = d.dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg).unwrap() + &http_section(true);
    std::fs::write(&cfg, text).unwrap();
    d.tick(game_dir::DEADLINE);
    d.tick(game_dir::MONDAY);
    let monday = d.outbox();
    let afani_form = monday
        .iter()
        .find(|m| m.to == ["afani@game.test"] && m.text.contains(AFANI_FORM))
        .expect("Afani's Monday form");
    assert!(
        afani_form
            .text
            .contains(&format!("{PUBLIC}/realm/login?token=realm-link.")),
        "the Monday form carries the realm's link: {}",
        afani_form.text
    );
    let seen: Vec<String> = monday.iter().map(|m| m.message_id.clone()).collect();
    let raw = "From: afani@game.test\r\nReply-To: thief@evil.test\r\nTo: sl@game.test\r\n\
               Subject: Re: AFANI link!\r\nMessage-ID: <link1@players.test>\r\n\
               Date: Mon, 30 Nov 2026 12:30:00 +0100\r\n\r\nplease\r\n";
    std::fs::write(d.dir.join("inbox/new/link1.m"), raw).unwrap();
    d.send("stranger@evil.test", "Afani link", "me too");
    d.send("genogien@game.test", "Genogien länk", "");
    d.tick("2026-11-30T13:00:00+01:00");
    let new = d.outbox_since(&seen);
    assert_eq!(new.len(), 2, "Afani's and Genogien's links only: {new:#?}");
    let afani = new.iter().find(|m| m.to_is("afani@game.test")).unwrap();
    assert_eq!(afani.to, ["afani@game.test"], "never the Reply-To");
    assert_eq!(afani.subject, "Afani link");
    assert!(
        afani.text.contains("Here is Afani's link"),
        "{}",
        afani.text
    );
    assert!(afani.text.contains(&format!("{PUBLIC}/realm/login?token=")));
    let genogien = new.iter().find(|m| m.to_is("genogien@game.test")).unwrap();
    assert_eq!(genogien.subject, "Genogien länk");
    assert!(
        genogien.text.contains("Här är Genogiens länk"),
        "{}",
        genogien.text
    );
    assert!(new.iter().all(|m| m.to.iter().all(|a| !a.contains("evil"))));
    let log = d.ok(&["gm", "log", "--realm", "Afani"]);
    assert!(log.contains("site_link_sent"), "{log}");
    assert!(
        !log.contains("realm-link."),
        "the token is never in the audit log: {log}"
    );
}

#[tokio::test]
async fn without_a_public_url_the_link_mail_says_the_site_is_not_public_and_forms_carry_no_link() {
    let s = Site::start(false).await;
    s.tick(DEADLINE).await;
    s.tick(MONDAY).await;
    s.send("genogien@game.test", "Genogien länk", "");
    s.tick("2026-11-30T13:00:00+01:00").await;
    let out = s.outbox();
    assert!(
        out.iter().all(|m| !m.text.contains("/realm/login")),
        "{out:#?}"
    );
    let reply = out
        .iter()
        .find(|m| m.subject == "Genogien länk")
        .expect("a reply");
    assert!(
        reply
            .text
            .contains("Spelets webbplats är inte öppen för spelarna"),
        "{}",
        reply.text
    );
    assert_eq!(s.audit("site_link_not_public").await.len(), 1);
}

#[tokio::test]
async fn link_requests_count_against_the_hourly_reply_limit_and_are_held_beyond_it() {
    let s = Site::start(true).await;
    let limit = s.app.cfg.limits.max_replies_per_hour as usize;
    for _ in 0..limit + 2 {
        s.send("afani@game.test", "Afani link", "");
    }
    s.tick("2026-11-24T10:00:00+01:00").await;
    let links = s
        .outbox()
        .into_iter()
        .filter(|m| m.subject == "Afani link")
        .count();
    assert_eq!(links, limit, "the hour's limit goes out, the rest is held");
    assert_eq!(s.audit("reply_held").await.len(), 2);
    assert_eq!(s.audit("site_link_sent").await.len(), limit + 2);
}

#[tokio::test]
async fn a_mailed_link_logs_its_realm_in_with_a_lax_httponly_cookie_and_shows_its_own_form() {
    let s = Site::start(true).await;
    s.to_monday_with_forms().await;
    let form = s
        .outbox()
        .into_iter()
        .rfind(|m| m.to_is("afani@game.test") && m.text.contains(AFANI_FORM))
        .unwrap();
    let token = token_in(&form.text);
    let r = s.get(&format!("/realm/login?token={token}"), None).await;
    assert_eq!(r.status, 303, "{r:?}");
    assert_eq!(r.header("location").as_deref(), Some("/realm"));
    let set = r.header("set-cookie").unwrap();
    for part in [
        "pbemd_realm=",
        "HttpOnly",
        "SameSite=Lax",
        "Path=/",
        "Secure",
    ] {
        assert!(set.contains(part), "{set}");
    }
    assert_eq!(r.header("referrer-policy").as_deref(), Some("no-referrer"));
    let cookie = set.split(';').next().unwrap().to_string();
    let page = s.get("/realm", Some(&cookie)).await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains(AFANI_FORM), "{}", page.body);
    assert!(page.body.contains("lang=\"en\""), "in Afani's language");
    assert!(!page.body.contains(GENOGIEN_FORM));
}

/// The attributes of a `Set-Cookie` line (everything after the value but `Max-Age`).
fn attributes(set: &str) -> Vec<String> {
    let mut a: Vec<String> = set
        .split(';')
        .skip(1)
        .map(|p| p.trim().to_string())
        .filter(|p| !p.starts_with("Max-Age="))
        .collect();
    a.sort();
    a
}

#[tokio::test]
async fn logging_out_is_a_post_with_the_csrf_token_that_clears_the_cookie_as_it_was_set() {
    for public in [true, false] {
        let s = Site::start(public).await;
        let key = s.app.site_secret().await.unwrap();
        let now = s.app.now().timestamp();
        let gs = s.state().await;
        let token = site_links::link_token(&key, gs.realm("Afani").unwrap(), now + 3600);
        let login = s.get(&format!("/realm/login?token={token}"), None).await;
        let set = login.header("set-cookie").unwrap();
        assert_eq!(set.contains("; Secure"), public, "{set}");
        let cookie = set.split(';').next().unwrap().to_string();
        // A GET (a link or an image on another site) logs nobody out.
        let page = s.get("/realm/logout", Some(&cookie)).await;
        assert_eq!(page.status, 200);
        assert!(page.header("set-cookie").is_none(), "{page:?}");
        assert!(
            page.body
                .contains("method=\"post\" action=\"/realm/logout\""),
            "{}",
            page.body
        );
        for forged in ["", "csrf=forged"] {
            let r = s.post("/realm/logout", Some(&cookie), forged).await;
            assert_eq!(r.status, 403, "{forged:?}");
            assert!(r.header("set-cookie").is_none(), "{forged:?}");
        }
        let out = s
            .post(
                "/realm/logout",
                Some(&cookie),
                &format!("csrf={}", csrf_in(&page.body)),
            )
            .await;
        assert_eq!(out.status, 200, "{out:?}");
        let clear = out.header("set-cookie").unwrap();
        assert!(
            clear.starts_with("pbemd_realm=;") && clear.contains("Max-Age=0"),
            "{clear}"
        );
        assert_eq!(
            attributes(&clear),
            attributes(&set),
            "cleared with the attributes it was set with"
        );
        assert!(out.body.contains("You are logged out"), "{}", out.body);
        let none = s.get("/realm/logout", None).await;
        assert_eq!(none.status, 200);
        assert!(none.body.contains("You are logged out"), "{}", none.body);
    }
}

#[tokio::test]
async fn forged_expired_and_other_purpose_tokens_are_refused_with_a_page_in_both_languages() {
    let s = Site::start(true).await;
    let key = s.app.site_secret().await.unwrap();
    let now = s.app.now().timestamp();
    let gs = s.state().await;
    let afani = gs.realm("Afani").unwrap();
    let good = site_links::link_token(&key, afani, now + 3600);
    let forged = good.replace(&hex_of("Afani"), &hex_of("Genogien"));
    let expired = site_links::link_token(&key, afani, now - 1);
    let session = sign::sign(&key, "realm-session", "Afani", now + 3600);
    let gm = sign::sign(&key, "gm-session", "gm", now + 3600);
    let other_key = site_links::link_token(&[9; 32], afani, now + 3600);
    let bare_name = sign::sign(&key, "realm-link", "Afani", now + 3600);
    let mut moved = afani.clone();
    moved.emails = vec!["old-player@game.test".into()];
    let old_player = site_links::link_token(&key, &moved, now + 3600);
    for bad in [
        forged,
        expired,
        session,
        gm,
        other_key,
        bare_name,
        old_player,
        "x".into(),
        String::new(),
    ] {
        let r = s.get(&format!("/realm/login?token={bad}"), None).await;
        assert_eq!(r.status, 403, "{bad}: {r:?}");
        assert!(r.header("set-cookie").is_none(), "{bad}");
        assert!(r.body.contains("Be om en ny"), "{}", r.body);
        assert!(r.body.contains("Ask for a new one"), "{}", r.body);
    }
    let ok = s.get(&format!("/realm/login?token={good}"), None).await;
    assert_eq!(ok.status, 303);
    s.clock.set(common::at("2026-12-30T09:00:00+01:00"));
    let late = s.get(&format!("/realm/login?token={good}"), None).await;
    assert_eq!(late.status, 403, "a link expires");
}

#[tokio::test]
async fn a_link_and_a_session_stop_working_when_the_realms_player_is_replaced() {
    let s = Site::start(true).await;
    let key = s.app.site_secret().await.unwrap();
    let now = s.app.now().timestamp();
    let gs = s.state().await;
    let token = site_links::link_token(&key, gs.realm("Afani").unwrap(), now + 3600);
    let before = s.get(&format!("/realm/login?token={token}"), None).await;
    assert_eq!(before.status, 303);
    let session = s.cookie("Afani").await;
    assert_eq!(s.get("/realm", Some(&session)).await.status, 200);
    let mut tx = s.app.store.begin().await.unwrap();
    let (v, gs) = s.app.state(&mut tx).await.unwrap();
    let mut gs = (*gs).clone();
    gs.realm_mut("Afani").unwrap().emails = vec!["new-player@game.test".into()];
    s.app
        .save_state(&mut tx, v, &gs, "test: a new player")
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let after = s.get(&format!("/realm/login?token={token}"), None).await;
    assert_eq!(after.status, 403, "the old player's link");
    let old = s.get("/realm", Some(&session)).await;
    assert_eq!(old.status, 403, "the old player's session ends at once");
}

fn hex_of(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn realm_a_cannot_read_realm_b_form_map_or_receipts_by_changing_a_url_or_an_id() {
    let s = Site::start(true).await;
    s.to_monday_with_forms().await;
    let a = s.cookie("Afani").await;
    // Genogien's own ids: its standing weekend form (a message) and its army group 1.
    let gs = s.state().await;
    let theirs = {
        let mut c = s.app.store.conn().await.unwrap();
        pbemd::store::forms::standing(&mut c, "Genogien", i64::from(gs.round))
            .await
            .unwrap()
            .expect("Genogien's form this round")
            .message_id
    };
    assert!(gs.army("Genogien", 1).is_some());
    let asks = [
        "realm=Genogien".to_string(),
        format!("realm=genogien&id={theirs}"),
        format!("id={theirs}&message={theirs}&form={theirs}"),
        "realm=Genogien&army=1&owner=Genogien&viewer=Genogien".to_string(),
        "realm=%47enogien&lang=sv".to_string(),
    ];
    // Every page of a realm, asked for with Genogien's name and ids: each answers with
    // Afani's own page, byte for byte (a 404 would not pass).
    for route in [
        "/realm",
        "/realm/map",
        "/realm/map.svg",
        "/realm/receipts",
        "/realm/wishes",
    ] {
        let own = s.get(route, Some(&a)).await;
        assert_eq!(own.status, 200, "{route}");
        assert!(!own.body.contains(GENOGIEN_FORM), "{route}: {}", own.body);
        assert!(!own.body.contains("genogien@game.test"), "{route}");
        for ask in &asks {
            let path = format!("{route}?{ask}");
            let r = s.get(&path, Some(&a)).await;
            assert_eq!(r.status, 200, "{path}");
            assert_eq!(r.body, own.body, "{path}: Afani's page, not Genogien's");
        }
    }
    // Changing the wishes with Genogien's name in the form changes Afani's.
    let page = s.get("/realm/wishes", Some(&a)).await;
    let form = format!(
        "csrf={}&realm=Genogien&buy1=sten&buy2=vatten&sell1=mat&sell2=eld",
        csrf_in(&page.body)
    );
    let r = s.post("/realm/wishes", Some(&a), &form).await;
    assert_eq!(r.status, 303, "{r:?}");
    let after = s.state().await;
    let wishes =
        |gs: &pbemd::game::GameState, realm: &str| gs.realm(realm).unwrap().trade_wishes.clone();
    assert_eq!(wishes(&after, "Genogien"), wishes(&gs, "Genogien"));
    assert_ne!(wishes(&after, "Afani"), wishes(&gs, "Afani"));
    let own = s.get("/realm?realm=Genogien", Some(&a)).await;
    assert!(own.body.contains(AFANI_FORM), "the session's realm only");
    let receipts = s.get("/realm/receipts?realm=Genogien", Some(&a)).await;
    assert!(
        receipts.body.contains("<td>stands</td>"),
        "{}",
        receipts.body
    );
    assert!(
        !receipts.body.contains("godkänd"),
        "no Swedish receipt of Genogien's"
    );
    let theirs = s
        .get("/realm/receipts", Some(&s.cookie("Genogien").await))
        .await;
    assert!(theirs.body.contains("godkänd"), "{}", theirs.body);
    let gs = s.state().await;
    let afani_svg = map::svg(
        &map::view(&gs, Viewer::Realm("Afani"), Dimension::Normal),
        "en",
    );
    let svg = s.get("/realm/map.svg?realm=Genogien", Some(&a)).await;
    assert_eq!(svg.status, 200);
    assert_eq!(svg.body, afani_svg, "Afani's own picture, whatever the URL");
    let g = s
        .get("/realm/map.svg", Some(&s.cookie("Genogien").await))
        .await;
    assert_eq!(
        g.body,
        map::svg(
            &map::view(&gs, Viewer::Realm("Genogien"), Dimension::Normal),
            "sv"
        )
    );
    for path in [
        "/realm",
        "/realm/map",
        "/realm/map.svg",
        "/realm/receipts",
        "/realm/wishes",
    ] {
        assert_eq!(
            s.get(path, None).await.status,
            403,
            "{path} without a session"
        );
        let wrong = format!(
            "{}=realm-session.{}.9999999999.00",
            auth::REALM_COOKIE,
            hex_of("Genogien")
        );
        assert_eq!(s.get(path, Some(&wrong)).await.status, 403, "{path} forged");
    }
}

/// Between the weekend's resolution and Monday's results a realm's map shows the world
/// as the weekend found it: what the weekend did is told by the Monday form first.
#[tokio::test]
async fn the_map_shows_the_weekend_only_once_the_monday_forms_are_sent() {
    let s = Site::start(true).await;
    s.tick(SATURDAY).await;
    s.send("afani@game.test", "Afani form", "BUY 2 heavy infantry");
    s.tick("2026-11-28T11:00:00+01:00").await;
    let before = s.state().await;
    s.tick(DEADLINE).await;
    let resolved = s.state().await;
    assert_eq!(resolved.phase, pbemd::game::state::Phase::Resolving);
    let svg = |gs: &pbemd::game::GameState| {
        map::svg(
            &map::view(gs, Viewer::Realm("Afani"), Dimension::Normal),
            "en",
        )
    };
    assert_ne!(
        svg(&before),
        svg(&resolved),
        "the weekend changed Afani's picture"
    );
    let a = s.cookie("Afani").await;
    let shown = s.get("/realm/map.svg", Some(&a)).await;
    assert_eq!(shown.status, 200);
    assert_eq!(
        shown.body,
        svg(&before),
        "Sunday evening: the world before the weekend"
    );
    s.tick(MONDAY).await;
    let after = s.state().await;
    let shown = s.get("/realm/map.svg", Some(&a)).await;
    assert_eq!(
        shown.body,
        svg(&after),
        "Monday: the weekend as the form told it"
    );
}

/// The realm's pages speak its language: an English realm's menu opens the trade board in
/// English, a Swedish realm's in Swedish; a page asked for without a session says what
/// is needed in both languages (the realm is not known).
#[tokio::test]
async fn the_realm_pages_keep_to_the_realms_language() {
    let s = Site::start(true).await;
    let afani = s.get("/realm", Some(&s.cookie("Afani").await)).await;
    assert!(
        afani.body.contains("href=\"/board?lang=en\""),
        "{}",
        afani.body
    );
    let genogien = s.get("/realm", Some(&s.cookie("Genogien").await)).await;
    assert!(
        genogien.body.contains("href=\"/board\"") && !genogien.body.contains("lang=en\""),
        "{}",
        genogien.body
    );
    let none = s.get("/realm/map", None).await;
    assert_eq!(none.status, 403);
    assert!(
        none.body.contains("Sidan behöver ert lands länk")
            && none.body.contains("This page needs your realm's link"),
        "{}",
        none.body
    );
}

#[tokio::test]
async fn wishes_change_between_weekends_with_csrf_as_a_new_audited_state_version() {
    let s = Site::start(true).await;
    let a = s.cookie("Afani").await;
    let page = s.get("/realm/wishes", Some(&a)).await;
    assert_eq!(page.status, 200);
    let csrf = csrf_in(&page.body);
    let form = "buy1=h%C3%A4star&buy2=sten&sell1=mat&sell2=eld";
    let no_csrf = s.post("/realm/wishes", Some(&a), form).await;
    assert_eq!(no_csrf.status, 403);
    assert!(
        no_csrf.body.contains("did not come from this page"),
        "in Afani's English: {}",
        no_csrf.body
    );
    let wrong = s
        .post("/realm/wishes", Some(&a), &format!("{form}&csrf=deadbeef"))
        .await;
    assert_eq!(wrong.status, 403);
    let other = s.cookie("Genogien").await;
    let cross = s
        .post(
            "/realm/wishes",
            Some(&other),
            &format!("{form}&csrf={csrf}"),
        )
        .await;
    assert_eq!(cross.status, 403, "one realm's token is not another's");
    assert!(
        cross.body.contains("kom inte från den här sidan"),
        "in Genogien's Swedish: {}",
        cross.body
    );
    let before = s.state().await;
    let bad = s
        .post(
            "/realm/wishes",
            Some(&a),
            &format!("buy1=unobtainium&buy2=sten&sell1=mat&sell2=eld&csrf={csrf}"),
        )
        .await;
    assert_eq!(bad.status, 409);
    assert!(
        bad.body.contains("&quot;unobtainium&quot; is no resource"),
        "{}",
        bad.body
    );
    assert_eq!(
        s.state().await.realm("Afani").unwrap().trade_wishes,
        before.realm("Afani").unwrap().trade_wishes
    );
    let ok = s
        .post(
            "/realm/wishes",
            Some(&a),
            &format!("{form}&csrf={csrf}&realm=Genogien"),
        )
        .await;
    assert_eq!(ok.status, 303, "{ok:?}");
    let after = s.state().await;
    let w = &after.realm("Afani").unwrap().trade_wishes;
    assert_eq!(
        (
            w.buy.iter().map(|r| r.key()).collect::<Vec<_>>(),
            w.sell.iter().map(|r| r.key()).collect::<Vec<_>>()
        ),
        (vec!["hästar", "sten"], vec!["mat", "eld"])
    );
    assert_eq!(
        after.realm("Genogien").unwrap().trade_wishes,
        before.realm("Genogien").unwrap().trade_wishes
    );
    let audit = s.audit("site_wishes").await;
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].0.as_deref(), Some("Afani"));
    assert!(
        audit[0].1.contains("hästar") && audit[0].1.contains("was"),
        "{}",
        audit[0].1
    );
    assert!(s
        .audit("state_saved")
        .await
        .iter()
        .any(|(_, d)| d.contains("Afani changed its trade wishes")));
    // After the form deadline the weekend is being resolved: refused until Monday.
    s.tick(DEADLINE).await;
    let page = s.get("/realm/wishes", Some(&a)).await;
    let closed = s
        .post(
            "/realm/wishes",
            Some(&a),
            &format!(
                "buy1=mat&buy2=mat&sell1=mat&sell2=mat&csrf={}",
                csrf_in(&page.body)
            ),
        )
        .await;
    assert_eq!(closed.status, 409);
    assert!(
        closed.body.contains("cannot be changed now"),
        "{}",
        closed.body
    );
    assert_eq!(s.audit("site_wishes").await.len(), 1);
    s.tick(MONDAY).await;
    let page = s.get("/realm/wishes", Some(&a)).await;
    let monday = s
        .post(
            "/realm/wishes",
            Some(&a),
            &format!(
                "buy1=mat&buy2=tyg&sell1=sten&sell2=eld&csrf={}",
                csrf_in(&page.body)
            ),
        )
        .await;
    assert_eq!(monday.status, 303, "open again after the results");
}

#[tokio::test]
async fn the_board_shows_every_realms_wishes_the_round_and_deadlines_and_nothing_else() {
    let s = Site::start(false).await;
    s.clock.set(common::at(SATURDAY));
    let en = s.get("/board?lang=en", None).await;
    assert_eq!(en.status, 200);
    let gs = s.state().await;
    for r in gs.realms.iter().filter(|r| !r.is_evil) {
        let buy: Vec<&str> = r
            .trade_wishes
            .buy
            .iter()
            .map(|x| x.name(pbemd::game::Lang::En))
            .collect();
        let row = format!("<td>{}</td><td>{}</td>", r.name, buy.join(", "));
        assert!(en.body.contains(&row), "{row}\n{}", en.body);
        assert!(
            !en.body
                .contains(&r.mission.chars().take(20).collect::<String>()),
            "no mission"
        );
        for e in &r.emails {
            assert!(!en.body.contains(e.as_str()), "no address");
        }
    }
    let round = format!("<strong id=\"round\">{}</strong>", gs.round);
    assert!(en.body.contains(&round), "{}", en.body);
    let deadline = s.app.local(common::at(DEADLINE), pbemd::game::Lang::En);
    assert!(
        en.body
            .contains(&format!("Weekend form deadline: {deadline}")),
        "{}",
        en.body
    );
    assert!(en.body.contains("Europe/Stockholm"));
    assert!(
        en.body
            .contains("WISHLIST buy &lt;resource&gt; &lt;resource&gt; sell"),
        "the grammar"
    );
    for word in ["Genborg", "Nordhamn", "Kustby", "victory points"] {
        assert!(
            !en.body.contains(word),
            "{word} is not the board's business"
        );
    }
    let sv = s.get("/board", None).await;
    assert!(
        sv.body.contains("Handelstavlan") && sv.body.contains("ÖNSKELISTA köp"),
        "{}",
        sv.body
    );
}

#[tokio::test]
async fn the_realm_pages_read_the_mailed_form_and_the_receipts_on_postgresql_too() {
    let Some(url) = common::pg_database_url().await else {
        return;
    };
    let s = Site::start_on(true, Some(&url)).await;
    assert!(s.app.cfg.database_url.starts_with("postgres"));
    s.to_monday_with_forms().await;
    let a = s.cookie("Afani").await;
    let form = s.get("/realm", Some(&a)).await;
    assert!(form.body.contains(AFANI_FORM), "{}", form.body);
    let receipts = s.get("/realm/receipts", Some(&a)).await;
    assert!(
        receipts.body.contains("<td>stands</td>"),
        "{}",
        receipts.body
    );
    let g = s
        .get("/realm/receipts", Some(&s.cookie("Genogien").await))
        .await;
    assert!(
        g.body.contains("godkänd") && !g.body.contains("accepted"),
        "{}",
        g.body
    );
}

#[test]
fn http_public_url_and_link_days_are_checked_when_the_config_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let cfg_path = pbemd::app::setup::new_game_dir(&dir.path().join("g"), None).unwrap();
    let base = std::fs::read_to_string(&cfg_path).unwrap();
    let read = |http: &str| Config::from_yaml(&format!("{base}{http}\n"), &cfg_path, &|_| None);
    let ok =
        read("http: {listen: \"127.0.0.1:0\", public_url: \"https://game.example.org/\"}").unwrap();
    assert_eq!(
        ok.http_public_url.as_deref(),
        Some("https://game.example.org")
    );
    assert_eq!(ok.http_link_days, 14, "the default");
    let none = read("http: {listen: \"127.0.0.1:0\", link_days: 3}").unwrap();
    assert_eq!((none.http_public_url, none.http_link_days), (None, 3));
    for bad in [
        "http: {listen: \"127.0.0.1:0\", public_url: \"game.example.org\"}",
        "http: {listen: \"127.0.0.1:0\", public_url: \"https://\"}",
        "http: {listen: \"127.0.0.1:0\", public_url: \"https://a b\"}",
        "http: {listen: \"127.0.0.1:0\", public_url: \"https://x.org/?q\"}",
        "http: {listen: \"127.0.0.1:0\", link_days: 0}",
        "http: {listen: \"127.0.0.1:0\", link_days: 400}",
    ] {
        let e = read(bad).unwrap_err().to_string();
        assert!(
            e.contains("http.public_url") || e.contains("http.link_days"),
            "{bad}: {e}"
        );
    }
}

#[tokio::test]
async fn the_opening_form_carries_the_realms_link_too() {
    let s = Site::start(true).await;
    let sent = pbemd::app::setup::mail_opening_forms(&s.app, s.app.now())
        .await
        .unwrap();
    assert!(sent.contains(&"Afani".to_string()));
    pbemd::app::tick::tick(&s.app).await.unwrap();
    let out = s.outbox();
    let opening = out
        .iter()
        .find(|m| m.to_is("afani@game.test"))
        .expect("Afani's opening form");
    let token = token_in(&opening.text);
    let r = s.get(&format!("/realm/login?token={token}"), None).await;
    assert_eq!(r.status, 303, "{r:?}");
    let page = s.get("/realm", Some(&s.cookie("Afani").await)).await;
    assert_eq!(
        page.header("cache-control").as_deref(),
        Some("private, no-store")
    );
}

/// The first `[XXXXXXXXXX]` sender token in a text.
fn sender_token_in(text: &str) -> Option<String> {
    text.match_indices('[').find_map(|(i, _)| {
        let t = text.get(i + 1..i + 11)?;
        (text.get(i + 11..i + 12) == Some("]")
            && t.bytes()
                .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b)))
        .then(|| t.to_string())
    })
}

#[test]
fn in_the_token_mode_a_link_request_without_the_token_is_held_and_one_with_it_is_answered() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("game");
    game_dir::ok(&game_dir::run(&["new", dir.to_str().unwrap()], &[]));
    let cfg = dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("sender_check: from-only\n", "sender_check: token\n")
        + &http_section(true);
    std::fs::write(&cfg, text).unwrap();
    let d = game_dir::Dir {
        _tmp: tmp,
        dir,
        mails: Default::default(),
    };
    d.ok(&["init", "--now", TUESDAY]);
    let opening = d
        .outbox()
        .into_iter()
        .find(|m| m.to_is("afani@game.test"))
        .expect("Afani's opening form");
    assert!(opening
        .text
        .contains(&format!("{PUBLIC}/realm/login?token=")));
    let token = sender_token_in(&opening.text).expect("the sender token");
    let seen: Vec<String> = d.outbox().iter().map(|m| m.message_id.clone()).collect();
    d.send("afani@game.test", "Afani link", "please");
    d.tick("2026-11-24T10:00:00+01:00");
    let new = d.outbox_since(&seen);
    assert!(
        new.iter().all(|m| !m.subject.starts_with("Afani link")),
        "{new:#?}"
    );
    let queue = d.ok(&["gm", "queue"]);
    assert!(queue.contains("unproven_sender"), "{queue}");
    let seen: Vec<String> = d.outbox().iter().map(|m| m.message_id.clone()).collect();
    d.send("afani@game.test", "Afani link", &format!("[{token}]"));
    d.tick("2026-11-24T10:30:00+01:00");
    let new = d.outbox_since(&seen);
    let link = new
        .iter()
        .find(|m| m.subject == format!("Afani link [k:{token}]"))
        .expect("the link, tagged with the realm's token");
    assert_eq!(link.to, ["afani@game.test"]);
    assert!(link.text.contains(&format!("{PUBLIC}/realm/login?token=")));
}

#[tokio::test]
async fn a_forwarded_https_from_an_untrusted_client_does_not_make_the_realm_cookie_secure() {
    let s = Site::start(false).await;
    let key = s.app.site_secret().await.unwrap();
    let now = s.app.now().timestamp();
    let gs = s.state().await;
    let token = site_links::link_token(&key, gs.realm("Afani").unwrap(), now + 3600);
    let path = format!("/realm/login?token={token}");
    let r = s.get_with(&path, "X-Forwarded-Proto: https").await;
    assert_eq!(r.status, 303, "{r:?}");
    let set = r.header("set-cookie").unwrap();
    assert!(
        set.contains("pbemd_realm=") && !set.contains("Secure"),
        "{set}"
    );
}

/// In a game without the Evil the realm's map page shows the world only: no heading
/// and no empty picture for a dimension the game does not have.
#[tokio::test]
async fn outside_a_game_with_the_evil_the_map_page_has_no_evil_section() {
    let s = Site::start(true).await;
    assert!(s.state().await.evil.is_none());
    for (realm, world, evil) in [
        ("Genogien", "Världen", "Ondskans dimension"),
        ("Afani", "The world", "The Evil dimension"),
    ] {
        let page = s.get("/realm/map", Some(&s.cookie(realm).await)).await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains(world), "{}", page.body);
        assert!(!page.body.contains(evil), "{}", page.body);
        assert!(!page.body.contains("map-evil"), "{}", page.body);
    }
}
