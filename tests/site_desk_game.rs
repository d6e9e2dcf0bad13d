//! The GM's desk, the game's side, through HTTP: the week, the Monday drafts, the
//! realms, the map and the season tools. Every page needs the GM's session; every
//! button needs the session's CSRF token and does what its `gm` command does (the
//! state, the outbox and the audit log are checked afterwards); everything from the
//! state and the players is escaped. One real browser test saves the screenshots.

#[path = "browser_common/mod.rs"]
mod browser;
mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use pbemd::app::App;
use pbemd::clock::FixedClock;
use pbemd::config::Config;
use pbemd::game::state::Dimension;
use pbemd::game::GameState;
use pbemd::render::map::{self, Viewer};
use pbemd::transport::maildir::Maildir;
use pbemd::web::site::html::url_part;

use common::{at, Sent};

const TUESDAY: &str = "2026-11-24T09:00:00+01:00";
const SATURDAY: &str = "2026-11-28T10:00:00+01:00";
const DEADLINE: &str = "2026-11-29T15:00:00+01:00";
const MONDAY: &str = "2026-11-30T12:00:00+01:00";

/// A game on SQLite + Maildir, served on loopback, with a GM logged in.
struct Desk {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    app: Arc<App>,
    clock: Arc<FixedClock>,
    inbox: Maildir,
    addr: SocketAddr,
    seq: std::sync::atomic::AtomicU64,
}

/// An answer: status, the Location header, the body.
struct Answer {
    status: u16,
    location: Option<String>,
    body: String,
}

impl Desk {
    async fn start(extra: &str) -> Desk {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let cfg_path = pbemd::app::setup::new_game_dir(&dir, None).unwrap();
        let text = std::fs::read_to_string(&cfg_path).unwrap() + extra;
        std::fs::write(&cfg_path, text).unwrap();
        let cfg = Config::load(&cfg_path).unwrap();
        let clock = Arc::new(FixedClock::new(at(TUESDAY)));
        let app = Arc::new(App::open(cfg, clock.clone()).await.unwrap());
        pbemd::app::setup::init(&app, at(TUESDAY), false)
            .await
            .unwrap();
        let inbox = Maildir::open(&dir.join("inbox")).unwrap();
        let addr = browser::serve(app.clone()).await;
        Desk {
            _tmp: tmp,
            dir,
            app,
            clock,
            inbox,
            addr,
            seq: Default::default(),
        }
    }

    /// A player mails the game.
    fn send(&self, from: &str, subject: &str, body: &str) {
        let n = self.seq.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let raw = common::mail(from, subject, body, &format!("d{n}@players.test"));
        self.inbox.drop_in(n, &raw).unwrap();
    }

    async fn tick(&self, when: &str) {
        self.clock.set(at(when));
        pbemd::app::tick::tick(&self.app).await.unwrap();
    }

    async fn cookie(&self) -> String {
        let now = self.app.now().timestamp();
        let v = pbemd::web::site::auth::gm_cookie(&self.app, now)
            .await
            .unwrap();
        format!("pbemd_gm={v}")
    }

    async fn get(&self, path: &str) -> Answer {
        let c = self.cookie().await;
        http(self.addr, "GET", path, Some(&c), "").await
    }

    /// The CSRF token the desk's forms carry.
    async fn csrf(&self) -> String {
        let page = self.get("/gm/season").await.body;
        let (_, rest) = page
            .split_once("name=\"csrf\" value=\"")
            .expect("a form with the token");
        rest.split('"').next().unwrap().to_string()
    }

    /// POST a form with the session's token.
    async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let token = self.csrf().await;
        let mut all = vec![("csrf", token.as_str())];
        all.extend_from_slice(fields);
        self.post_raw(path, &all).await
    }

    async fn post_raw(&self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let body: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("{}={}", url_part(k), url_part(v)))
            .collect();
        let c = self.cookie().await;
        http(self.addr, "POST", path, Some(&c), &body.join("&")).await
    }

    async fn state(&self) -> (i64, Arc<GameState>) {
        let mut c = self.app.store.conn().await.unwrap();
        self.app.state(&mut c).await.unwrap()
    }

    /// The audit entries of `kind`.
    async fn audit(&self, kind: &str) -> Vec<pbemd::store::events::Event> {
        let mut c = self.app.store.conn().await.unwrap();
        pbemd::store::events::filtered(&mut c, None, None)
            .await
            .unwrap()
            .into_iter()
            .filter(|e| e.kind == kind)
            .collect()
    }

    async fn audit_len(&self) -> usize {
        let mut c = self.app.store.conn().await.unwrap();
        pbemd::store::events::filtered(&mut c, None, None)
            .await
            .unwrap()
            .len()
    }

    /// Every mail written to the outbox Maildir.
    fn outbox(&self) -> Vec<Sent> {
        let dir = self.dir.join("outbox").join("new");
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        names.sort();
        names
            .iter()
            .map(|p| Sent::parse(&std::fs::read(p).unwrap()))
            .collect()
    }

    fn outbox_to(&self, addr: &str) -> Vec<Sent> {
        self.outbox()
            .into_iter()
            .filter(|m| m.to_is(addr))
            .collect()
    }
}

/// One HTTP/1.1 request over a fresh connection.
async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    body: &str,
) -> Answer {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let cookie = cookie.map_or(String::new(), |c| format!("Cookie: {c}\r\n"));
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{cookie}\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let location = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("location: ")
                .or_else(|| l.strip_prefix("Location: "))
        })
        .map(str::to_string);
    Answer {
        status,
        location,
        body: body.to_string(),
    }
}

const PAGES: [&str; 7] = [
    "/gm",
    "/gm/drafts",
    "/gm/realms",
    "/gm/realm/Afani",
    "/gm/map",
    "/gm/map?dimension=evil",
    "/gm/season",
];

#[tokio::test]
async fn every_desk_page_renders_for_the_gm_and_sends_anyone_else_to_the_login() {
    let d = Desk::start("").await;
    for p in PAGES {
        let a = d.get(p).await;
        assert_eq!(a.status, 200, "{p}: {}", a.body);
        assert!(
            a.body.contains("<nav>") && a.body.contains("/gm/drafts"),
            "{p}"
        );
        let anon = http(d.addr, "GET", p, None, "").await;
        assert_eq!(anon.status, 303, "{p} without a cookie");
        assert_eq!(anon.location.as_deref(), Some("/gm/login"), "{p}");
        let forged = http(d.addr, "GET", p, Some("pbemd_gm=forged.token"), "").await;
        assert_eq!(forged.status, 303, "{p} with a forged cookie");
    }
    let realm = d.get("/gm/realm/afani").await;
    assert!(realm.body.contains("<h1>Realm afani</h1>") && realm.body.contains("<h2>Cities</h2>"));
    assert_eq!(d.get("/gm/realm/Nowhere").await.status, 404);
    let bad = d.get("/gm/map?dimension=astral").await;
    assert_eq!(bad.status, 404);
    assert!(bad.body.contains("no dimension `astral`"), "{}", bad.body);
    let map = d.get("/gm/map?dimension=evil").await.body;
    assert!(
        map.contains("<svg") && map.contains("the Evil&#39;s dimension"),
        "{map}"
    );
}

#[tokio::test]
async fn the_week_shows_who_sent_forms_when_who_is_missing_and_away_and_the_next_deadlines() {
    let d = Desk::start("").await;
    let a = d
        .post(
            "/gm/season/absence",
            &[("realm", "kaldor"), ("weekends", "2")],
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    d.tick(SATURDAY).await;
    d.send(
        "afani@game.test",
        "Afani form",
        "BUY 1 spy\nBUY 9999 heavy infantry\nBUY 2 <b>dragons</b>",
    );
    d.tick("2026-11-28T11:30:00+01:00").await;
    let week = d.get("/gm").await.body;
    assert!(week.contains("id=\"round\">1<"), "{week}");
    assert!(week.contains("id=\"phase\">"), "{week}");
    let row = |realm: &str| {
        let start = week.find(&format!(">{realm}</a>")).expect(realm);
        week[start..].split("</tr>").next().unwrap().to_string()
    };
    let afani = row("Afani");
    assert!(
        afani.contains(">sent<") && afani.contains("2026-11-28T11:30:00+01:00"),
        "{afani}"
    );
    // The receipt: what was accepted and refused, each refused line with its reason
    // (escaped), linked to the form's message.
    assert!(afani.contains("1 accepted, 2 refused"), "{afani}");
    assert!(
        afani.contains("<code>BUY 9999 heavy infantry</code>")
            && afani.contains("<code>BUY 2 &lt;b&gt;dragons&lt;/b&gt;</code>"),
        "{afani}"
    );
    assert!(afani.contains("href=\"/gm/message/"), "{afani}");
    let (_, reason) = afani
        .split_once("dragons&lt;/b&gt;</code>: ")
        .expect("the refused line's reason");
    assert!(reason.split("</li>").next().unwrap().len() > 20, "{afani}");
    assert!(
        row("Kaldor").contains("missing (away)"),
        "{}",
        row("Kaldor")
    );
    assert!(row("Mirandel").contains(">missing<"), "{}", row("Mirandel"));
    // The deadlines are the GM report's: the next form close is Sunday 15:00.
    assert!(week.contains("form_close"), "{week}");
    assert!(
        week.contains("29 november") || week.contains("29 November"),
        "{week}"
    );
}

/// Every button's URL with fields that would act (and `/gm/outbox/{id}/retry`, whose
/// id the test makes).
const BUTTONS: [(&str, &[(&str, &str)]); 13] = [
    ("/gm/queue/release", &[("realm", "Afani")]),
    ("/gm/drafts/rollback", &[("force", "1")]),
    ("/gm/drafts/resolve", &[]),
    ("/gm/drafts/release", &[("all", "1")]),
    ("/gm/drafts/results-hold", &[]),
    ("/gm/drafts/results-release", &[]),
    ("/gm/season/pause", &[("reason", "x")]),
    ("/gm/season/resume", &[]),
    ("/gm/season/extend", &[("hours", "5")]),
    ("/gm/season/notice", &[("text", "hello"), ("now", "1")]),
    (
        "/gm/season/absence",
        &[("realm", "Afani"), ("weekends", "1")],
    ),
    (
        "/gm/season/replace",
        &[("realm", "Afani"), ("address", "new@x.test")],
    ),
    (
        "/gm/season/address",
        &[("realm", "Afani"), ("op", "add"), ("address", "b@x.test")],
    ),
];

/// An outgoing mail that failed and was given up: its outbox id.
async fn failed_mail(d: &Desk) -> i64 {
    let to = vec!["afani@game.test".to_string()];
    let m = pbemd::store::outbox::NewOutgoing {
        dedup_key: "csrf-test",
        message_id: "<csrf-test@game.test>",
        kind: "refusal",
        to_addrs: &to,
        from_addr: "sl@game.test",
        subject: "Re: x",
        raw: b"Subject: Re: x\r\n\r\nx\r\n",
        kept: None,
        at: 1,
    };
    let mut c = d.app.store.conn().await.unwrap();
    let id = pbemd::store::outbox::enqueue(&mut c, &m).await.unwrap();
    pbemd::store::outbox::mark_attempt_failed(&mut c, id, "550 no", 2, true)
        .await
        .unwrap();
    id
}

#[tokio::test]
async fn a_post_without_or_with_a_wrong_csrf_token_is_refused_and_changes_nothing() {
    let d = Desk::start("").await;
    let failed = failed_mail(&d).await;
    let (version, _) = d.state().await;
    let (audit, mails) = (d.audit_len().await, d.outbox().len());
    let retry = format!("/gm/outbox/{failed}/retry");
    let buttons = BUTTONS.into_iter().chain([(retry.as_str(), &[][..])]);
    for (path, fields) in buttons {
        let none = d.post_raw(path, fields).await;
        assert_eq!(none.status, 403, "{path} without a token");
        let mut wrong = vec![("csrf", "not-the-token")];
        wrong.extend_from_slice(fields);
        assert_eq!(
            d.post_raw(path, &wrong).await.status,
            403,
            "{path} wrong token"
        );
        let anon = http(d.addr, "POST", path, None, "csrf=x").await;
        assert_eq!(anon.status, 303, "{path} without a session");
    }
    assert_eq!(d.state().await.0, version, "the state is unchanged");
    assert_eq!(d.audit_len().await, audit, "nothing audited");
    assert_eq!(d.outbox().len(), mails, "nothing mailed");
    let mut c = d.app.store.conn().await.unwrap();
    let row = pbemd::store::outbox::get(&mut c, failed).await.unwrap();
    assert_eq!(row.unwrap().state, "failed", "the mail is not sent again");
    drop(c);
    // The same button with the token does act.
    let ok = d
        .post(
            "/gm/season/absence",
            &[("realm", "Afani"), ("weekends", "1")],
        )
        .await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert!(d.state().await.0 > version);
}

#[tokio::test]
async fn pause_and_resume_from_the_desk_do_what_gm_pause_and_gm_resume_do() {
    let d = Desk::start("").await;
    let before = d.outbox_to("afani@game.test").len();
    let p = d
        .post(
            "/gm/season/pause",
            &[("until", "2026-11-27"), ("reason", "Jul")],
        )
        .await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(p.body.contains("the game is paused from"), "{}", p.body);
    assert!(p.body.contains("id=\"paused\""), "{}", p.body);
    let (_, gs) = d.state().await;
    let pause = gs.calendar.pause.as_ref().expect("paused");
    assert_eq!(pause.reason, "Jul");
    assert_eq!(pause.until, at("2026-11-27T00:00:00+01:00"));
    assert_eq!(d.audit("gm_pause").await.len(), 1);
    let told = d.outbox_to("afani@game.test");
    assert_eq!(told.len(), before + 1, "Afani is told of the pause");
    assert!(d.get("/gm").await.body.contains("id=\"paused\""));
    // A second pause is refused on the page? No: it moves the end; a bad date is refused.
    let bad = d
        .post("/gm/season/pause", &[("until", "tomorrow-ish")])
        .await;
    assert_eq!(bad.status, 422);
    assert!(bad.body.contains("tomorrow-ish"), "{}", bad.body);
    d.clock.set(at("2026-11-25T09:00:00+01:00"));
    let r = d.post("/gm/season/resume", &[]).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("the game resumes at"), "{}", r.body);
    assert!(d.state().await.1.calendar.pause.is_none());
    assert_eq!(d.audit("gm_resume").await.len(), 1);
    assert_eq!(
        d.outbox_to("afani@game.test").len(),
        before + 2,
        "told of the resume"
    );
    let again = d.post("/gm/season/resume", &[]).await;
    assert_eq!(again.status, 422, "nothing to resume: {}", again.body);
    assert!(again.body.contains("id=\"refused\""));
}

#[tokio::test]
async fn extend_and_notice_from_the_desk_tell_the_realms_and_are_audited() {
    let d = Desk::start("").await;
    d.tick(SATURDAY).await;
    let too_many = d.post("/gm/season/extend", &[("hours", "49")]).await;
    assert_eq!(too_many.status, 422);
    assert!(too_many.body.contains("got 49"), "{}", too_many.body);
    let word = d.post("/gm/season/extend", &[("hours", "soon")]).await;
    assert!(word.body.contains("got `soon`"), "{}", word.body);
    assert!(d.audit("gm_extend").await.is_empty());
    let before = d.outbox_to("afani@game.test").len();
    let e = d
        .post("/gm/season/extend", &[("realm", "afani"), ("hours", "5")])
        .await;
    assert_eq!(e.status, 200, "{}", e.body);
    assert!(
        e.body.contains("extended for Afani&#39;s form"),
        "{}",
        e.body
    );
    let audit = d.audit("gm_extend").await;
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].realm.as_deref(), Some("Afani"));
    assert_eq!(d.outbox_to("afani@game.test").len(), before + 1);
    let n = d
        .post(
            "/gm/season/notice",
            &[("text", "Spelet firar jul"), ("now", "1")],
        )
        .await;
    assert_eq!(n.status, 200, "{}", n.body);
    assert!(n.body.contains("mailed now to"), "{}", n.body);
    let mails = d.outbox_to("kaldor@game.test");
    assert!(mails.iter().any(|m| m.text.contains("Spelet firar jul")));
    let w = d
        .post(
            "/gm/season/notice",
            &[("realm", "Kaldor"), ("text", "Bara till er")],
        )
        .await;
    assert!(
        w.body.contains("waits for the next Monday forms of Kaldor"),
        "{}",
        w.body
    );
    assert!(d.get("/gm/season").await.body.contains("Bara till er"));
    assert_eq!(d.audit("gm_notice").await.len(), 2);
    let empty = d.post("/gm/season/notice", &[("text", "  ")]).await;
    assert_eq!(empty.status, 422, "{}", empty.body);
}

#[tokio::test]
async fn absences_replacements_and_addresses_from_the_desk_change_the_state_and_tell_the_realm() {
    let d = Desk::start("").await;
    let a = d
        .post(
            "/gm/season/absence",
            &[("realm", "Kaldor"), ("weekends", "2")],
        )
        .await;
    assert!(
        a.body.contains("Kaldor is away for rounds 1–2"),
        "{}",
        a.body
    );
    let kaldor = |gs: &GameState| {
        gs.realms
            .iter()
            .find(|r| r.name == "Kaldor")
            .unwrap()
            .clone()
    };
    assert!(kaldor(&d.state().await.1).season.absent_in(1));
    assert!(
        !d.outbox_to("kaldor@game.test").is_empty(),
        "Kaldor is told"
    );
    let none = d.post("/gm/season/absence", &[("weekends", "2")]).await;
    assert!(none.body.contains("choose a realm"), "{}", none.body);
    let add = d
        .post(
            "/gm/season/address",
            &[
                ("realm", "kaldor"),
                ("op", "add"),
                ("address", "k2@game.test"),
            ],
        )
        .await;
    assert_eq!(add.status, 200, "{}", add.body);
    assert!(kaldor(&d.state().await.1)
        .emails
        .contains(&"k2@game.test".to_string()));
    assert_eq!(d.audit("gm_address_add").await.len(), 1);
    let rm = d
        .post(
            "/gm/season/address",
            &[
                ("realm", "Kaldor"),
                ("op", "remove"),
                ("address", "k2@game.test"),
            ],
        )
        .await;
    assert_eq!(rm.status, 200, "{}", rm.body);
    assert!(!kaldor(&d.state().await.1)
        .emails
        .contains(&"k2@game.test".to_string()));
    let odd = d
        .post(
            "/gm/season/address",
            &[("realm", "Kaldor"), ("op", "swap"), ("address", "x@y.test")],
        )
        .await;
    assert!(odd.body.contains("got `swap`"), "{}", odd.body);
    let r = d
        .post(
            "/gm/season/replace",
            &[
                ("realm", "Kaldor"),
                ("address", "ny@game.test"),
                ("display", "Nya Spelaren"),
            ],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        kaldor(&d.state().await.1).emails,
        vec!["ny@game.test".to_string()]
    );
    assert_eq!(d.audit("gm_realm_replace").await.len(), 1);
    assert!(
        !d.outbox_to("ny@game.test").is_empty(),
        "the new player gets the form"
    );
    let bad = d
        .post(
            "/gm/season/replace",
            &[("realm", "Kaldor"), ("address", "not an address")],
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.body);
}

/// A weekend with Afani's form, resolved at the deadline.
async fn resolved(d: &Desk) {
    d.tick(SATURDAY).await;
    d.send("afani@game.test", "Afani form", "BUY 1 spy");
    d.tick("2026-11-28T11:00:00+01:00").await;
    d.tick(DEADLINE).await;
}

#[tokio::test]
async fn the_drafts_page_shows_the_monday_forms_and_rolls_back_and_resolves_again() {
    let d = Desk::start("").await;
    resolved(&d).await;
    let page = d.get("/gm/drafts").await.body;
    assert!(
        page.contains(">Afani</h3>") && page.contains(">Kaldor</h3>"),
        "{page}"
    );
    assert!(page.contains("href=\"#draft-Kaldor\""), "{page}");
    // Each draft is the text `gm preview` prints, with the pictures the mail carries.
    let drafts = pbemd::app::weekend::preview(&d.app, Some("Afani"), None)
        .await
        .unwrap();
    let escape = pbemd::web::site::html::escape;
    let text = format!("<pre class=\"draft\">{}</pre>", escape(&drafts.forms[0].1));
    assert!(page.contains(&text), "{text}\n{page}");
    let gs = d.state().await.1;
    let view = map::view(&gs, Viewer::Realm("Afani"), Dimension::Normal);
    let svg = format!(
        "<div class=\"map\" id=\"draft-map-Afani-normal\">{}</div>",
        map::svg(&view, "en")
    );
    assert!(page.contains(&svg), "{page}");
    assert!(
        !page.contains("id=\"draft-map-Afani-evil\""),
        "Afani sees nothing of the Evil's dimension"
    );
    assert!(
        page.contains("its results wait for the results event"),
        "{page}"
    );
    let rb = d.post("/gm/drafts/rollback", &[]).await;
    assert_eq!(rb.status, 200, "{}", rb.body);
    assert!(rb.body.contains("round 1 rolled back"), "{}", rb.body);
    assert_eq!(
        d.state().await.1.round,
        1,
        "the state before the weekend is back"
    );
    assert_eq!(d.audit("gm_rollback").await.len(), 1);
    let twice = d.post("/gm/drafts/rollback", &[]).await;
    assert_eq!(twice.status, 422);
    assert!(
        twice.body.contains("has no resolution to roll back"),
        "{}",
        twice.body
    );
    d.tick(MONDAY).await;
    let held = d.get("/gm/drafts").await.body;
    assert!(held.contains("id=\"results-held\""), "{held}");
    let forms_before = d.outbox_to("afani@game.test").len();
    let rs = d.post("/gm/drafts/resolve", &[]).await;
    assert_eq!(rs.status, 200, "{}", rs.body);
    assert!(
        rs.body.contains("held Monday forms mailed to"),
        "{}",
        rs.body
    );
    assert_eq!(d.state().await.1.round, 2);
    let afani = d.outbox_to("afani@game.test");
    assert_eq!(afani.len(), forms_before + 1, "Afani gets its Monday form");
    assert!(!d
        .get("/gm/drafts")
        .await
        .body
        .contains("id=\"results-held\""));
    let again = d.post("/gm/drafts/resolve", &[]).await;
    assert_eq!(again.status, 422, "{}", again.body);
}

#[tokio::test]
async fn rollback_after_a_change_of_the_state_needs_the_force_box() {
    let d = Desk::start("").await;
    resolved(&d).await;
    let mut tx = d.app.store.begin().await.unwrap();
    let (v, gs) = d.app.state(&mut tx).await.unwrap();
    let mut gs = (*gs).clone();
    gs.realms[1].vp += 7;
    d.app
        .save_state(&mut tx, v, &gs, "a GM correction")
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let refused = d.post("/gm/drafts/rollback", &[]).await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(refused.body.contains("add --force"), "{}", refused.body);
    assert!(d.audit("gm_rollback").await.is_empty());
    let forced = d.post("/gm/drafts/rollback", &[("force", "1")]).await;
    assert_eq!(forced.status, 200, "{}", forced.body);
    assert_eq!(d.state().await.1.round, 1);
    assert_eq!(d.audit("gm_rollback").await.len(), 1);
}

#[tokio::test]
async fn release_on_the_drafts_page_sends_the_replies_flood_control_held() {
    let d = Desk::start("limits: {max_replies_per_hour: 1}\n").await;
    for _ in 0..4 {
        d.send("afani@game.test", "Afani form", "BUY 1 spy");
    }
    d.tick("2026-11-24T10:00:00+01:00").await;
    let page = d.get("/gm/drafts").await.body;
    let at = page.find("<h2>Held in the outbox</h2>").unwrap();
    assert!(page[at..].contains("<td>Afani</td><td>3</td>"), "{page}");
    let held = first_held_id(&page[at..]);
    assert!(
        page[at..].contains("Re: Afani form"),
        "each held reply's subject: {page}"
    );
    let before = d.outbox_to("afani@game.test").len();
    let none = d.post("/gm/drafts/release", &[]).await;
    assert_eq!(none.status, 422, "{}", none.body);
    let one = d
        .post("/gm/drafts/release", &[("id", &held.to_string())])
        .await;
    assert_eq!(one.status, 200, "{}", one.body);
    assert!(one.body.contains("1 held replies released"), "{}", one.body);
    assert_eq!(d.outbox_to("afani@game.test").len(), before + 1);
    let gone = d
        .post("/gm/drafts/release", &[("id", &held.to_string())])
        .await;
    assert_eq!(gone.status, 422, "{}", gone.body);
    assert!(gone.body.contains("is not a held reply"), "{}", gone.body);
    let r = d.post("/gm/drafts/release", &[("realm", "afani")]).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("2 held replies released"), "{}", r.body);
    assert_eq!(d.outbox_to("afani@game.test").len(), before + 3);
    assert_eq!(
        d.audit("gm_release").await.len(),
        3,
        "every release audited"
    );
    assert!(r.body.contains("No reply is held by flood control."));
}

/// The first outbox id in the page's table of held replies.
fn first_held_id(page: &str) -> i64 {
    let (_, rest) = page
        .split_once("name=\"id\" value=\"")
        .expect("a held reply's release button");
    rest.split('"').next().unwrap().parse().unwrap()
}

#[tokio::test]
async fn held_rows_lists_the_held_replies_on_sqlite_and_postgres() {
    let (sqlite, _dir) = common::sqlite_store().await;
    let mut stores = vec![sqlite];
    stores.extend(common::pg_store().await);
    for store in stores {
        let mut c = store.conn().await.unwrap();
        let mut ids = Vec::new();
        for n in 0..3 {
            let (key, mid) = (format!("held-test:{n}"), format!("<held{n}@game.test>"));
            let m = pbemd::store::outbox::NewOutgoing {
                dedup_key: &key,
                message_id: &mid,
                kind: "refusal",
                to_addrs: &[],
                from_addr: "sl@game.test",
                subject: "Re: x",
                raw: b"raw",
                kept: None,
                at: 1,
            };
            ids.push(pbemd::store::outbox::enqueue(&mut c, &m).await.unwrap());
        }
        pbemd::store::notices::hold(&mut c, ids[0], "Afani", 5)
            .await
            .unwrap();
        pbemd::store::notices::hold(&mut c, ids[2], "Kaldor", 6)
            .await
            .unwrap();
        let rows = pbemd::store::desk_game::held_rows(&mut c, 10)
            .await
            .unwrap();
        let mine: Vec<_> = rows.iter().filter(|r| ids.contains(&r.id)).collect();
        assert_eq!(mine.len(), 2, "{rows:?}");
        assert_eq!((mine[0].id, mine[0].realm.as_str()), (ids[0], "Afani"));
        assert_eq!((mine[1].kind.as_str(), mine[1].held_at), ("refusal", 6));
        assert_eq!(mine[1].subject, "Re: x");
        let one = pbemd::store::notices::Release::One(ids[0]);
        pbemd::store::notices::release(&mut c, &one, 7)
            .await
            .unwrap();
        let rows = pbemd::store::desk_game::held_rows(&mut c, 10)
            .await
            .unwrap();
        assert!(!rows.iter().any(|r| r.id == ids[0]), "released: {rows:?}");
    }
}

#[tokio::test]
async fn realm_names_and_player_text_are_escaped_on_every_page() {
    let d = Desk::start("").await;
    let evil = "<script>alert(1)</script>";
    let img = "<img src=x onerror=alert(2)>";
    let mut tx = d.app.store.begin().await.unwrap();
    let (v, gs) = d.app.state(&mut tx).await.unwrap();
    let mut gs = (*gs).clone();
    let afani = gs.realms.iter_mut().find(|r| r.name == "Afani").unwrap();
    afani.mission = evil.into();
    gs.cities
        .iter_mut()
        .find(|c| c.owner == "Afani")
        .unwrap()
        .name = img.into();
    d.app.save_state(&mut tx, v, &gs, "test").await.unwrap();
    tx.commit().await.unwrap();
    let n = d
        .post(
            "/gm/season/notice",
            &[
                ("realm", "Afani"),
                ("text", "<a href=\"javascript:x\">klick</a>"),
            ],
        )
        .await;
    assert_eq!(n.status, 200, "{}", n.body);
    d.post("/gm/season/pause", &[("reason", img)]).await;
    let mut pages: Vec<String> = Vec::new();
    for p in PAGES {
        pages.push(d.get(p).await.body);
    }
    pages.push(d.get(&format!("/gm/realm/{}", url_part(evil))).await.body);
    for (p, body) in pages.iter().enumerate() {
        assert!(!body.contains("<script>"), "page {p}: {body}");
        assert!(!body.contains("<img"), "page {p}: {body}");
        assert!(!body.contains("href=\"javascript:"), "page {p}: {body}");
    }
    assert!(
        pages[3].contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{}",
        pages[3]
    );
    assert!(
        pages[3].contains("&lt;img src=x onerror=alert(2)&gt;"),
        "{}",
        pages[3]
    );
    assert!(
        pages[6].contains("&lt;a href=&quot;javascript:x&quot;&gt;klick"),
        "{}",
        pages[6]
    );
    assert!(
        pages[0].contains("&lt;img src=x"),
        "the pause reason: {}",
        pages[0]
    );
    assert!(
        pages[7].contains("no realm named &lt;script&gt;"),
        "{}",
        pages[7]
    );
}

#[tokio::test]
async fn the_gm_reads_the_week_and_the_monday_drafts_in_a_browser() {
    let Some(b) = browser::Browser::start().await else {
        return;
    };
    let d = Desk::start("").await;
    resolved(&d).await;
    let base = format!("http://{}", d.addr);
    b.client.goto(&format!("{base}/healthz")).await.unwrap();
    // Chromium refuses `SameSite=None` without `Secure`; the desk's own cookie is Strict.
    let text = format!(
        "{}; Path=/; Domain=127.0.0.1; SameSite=Strict",
        d.cookie().await
    );
    let c = fantoccini::cookies::Cookie::parse(text).unwrap();
    b.client.add_cookie(c).await.unwrap();
    b.client.goto(&format!("{base}/gm")).await.unwrap();
    let week = b.page_text().await;
    b.screenshot("desk_week").await;
    b.client.goto(&format!("{base}/gm/drafts")).await.unwrap();
    let drafts = b.page_text().await;
    b.screenshot("desk_drafts").await;
    b.finish().await;
    assert!(
        week.contains("Weekend forms of round 1 (resolved"),
        "{week}"
    );
    assert!(week.contains("1 sent, 5 missing"), "{week}");
    assert!(week.contains("Next deadlines"), "{week}");
    assert!(
        drafts.contains("Drafted Monday forms") && drafts.contains("Kaldor"),
        "{drafts}"
    );
    assert!(
        drafts.contains("Roll back the weekend (gm rollback)"),
        "{drafts}"
    );
}

#[tokio::test]
async fn the_drafts_page_holds_the_monday_results_and_releases_them() {
    let d = Desk::start("").await;
    resolved(&d).await;
    let hold = d.post("/gm/drafts/results-hold", &[]).await;
    assert_eq!(hold.status, 200, "{}", hold.body);
    assert!(hold.body.contains("id=\"results-hold\""), "{}", hold.body);
    assert_eq!(d.audit("gm_results_hold").await.len(), 1);
    let forms_before = d.outbox_to("afani@game.test").len();
    d.tick(MONDAY).await;
    assert_eq!(
        d.outbox_to("afani@game.test").len(),
        forms_before,
        "the results event keeps the forms back"
    );
    let rel = d.post("/gm/drafts/results-release", &[]).await;
    assert_eq!(rel.status, 200, "{}", rel.body);
    assert!(
        rel.body.contains("the results of round 1 mailed to"),
        "{}",
        rel.body
    );
    assert_eq!(d.outbox_to("afani@game.test").len(), forms_before + 1);
    assert_eq!(d.audit("gm_results_release").await.len(), 1);
    let again = d.post("/gm/drafts/results-release", &[]).await;
    assert_eq!(again.status, 422, "{}", again.body);
}

/// A hold outlives a rollback on the drafts page: after **Hold**, **Roll back** and the
/// results event, the page says the GM holds the forms (not that resolving again sends
/// them); **Resolve again** keeps them back and says so; **Release** sends them.
#[tokio::test]
async fn the_drafts_page_keeps_a_hold_through_a_rollback_and_says_what_sends_the_forms() {
    let d = Desk::start("").await;
    resolved(&d).await;
    assert_eq!(d.post("/gm/drafts/results-hold", &[]).await.status, 200);
    assert_eq!(d.post("/gm/drafts/rollback", &[]).await.status, 200);
    let forms_before = d.outbox_to("afani@game.test").len();
    d.tick(MONDAY).await;
    let page = d.get("/gm/drafts").await.body;
    assert!(page.contains("id=\"results-hold\""), "{page}");
    assert!(!page.contains("id=\"results-held\""), "{page}");
    assert!(
        page.contains("once the weekend is resolved again"),
        "{page}"
    );
    let rs = d.post("/gm/drafts/resolve", &[]).await;
    assert_eq!(rs.status, 200, "{}", rs.body);
    assert!(
        rs.body
            .contains("the Monday forms stay held, as the GM asked"),
        "{}",
        rs.body
    );
    assert_eq!(d.outbox_to("afani@game.test").len(), forms_before);
    let rel = d.post("/gm/drafts/results-release", &[]).await;
    assert_eq!(rel.status, 200, "{}", rel.body);
    assert!(
        rel.body.contains("the results of round 1 mailed to"),
        "{}",
        rel.body
    );
    assert_eq!(d.outbox_to("afani@game.test").len(), forms_before + 1);
    let page = d.get("/gm/drafts").await.body;
    assert!(!page.contains("id=\"results-hold\""), "{page}");
}
