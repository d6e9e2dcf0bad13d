//! The GM's desk under test: a started game (SQLite, or PostgreSQL when asked) with a
//! GM password, served on loopback with the client's address known, and a bare
//! HTTP/1.1 client with cookies. Include with
//! `#[path = "desk_common/mod.rs"] mod desk;` next to `mod common;`.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pbemd::app::App;
use pbemd::clock::FixedClock;
use pbemd::config::Config;
use pbemd::store::messages::{self, Message};
use pbemd::transport::maildir::Maildir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common;

pub const PASSWORD: &str = "rätt häst batteri";
pub const TUESDAY: &str = "2026-11-24T09:00:00+01:00";

/// A game with the desk served.
pub struct Desk {
    pub dir: tempfile::TempDir,
    pub app: Arc<App>,
    pub clock: Arc<FixedClock>,
    pub addr: SocketAddr,
    inbox: Maildir,
    seq: AtomicU64,
}

impl Desk {
    /// Every envoy held for review; the GM's password is [`PASSWORD`]; `extra` config
    /// lines go inside the `http:` block (two spaces in).
    pub async fn start(extra_http: &str) -> Desk {
        Self::start_with(None, "courier: {review: all}\n", extra_http, true).await
    }

    /// The full form: `database` (a PostgreSQL URL, or SQLite), top-level config
    /// `extra`, lines for the `http:` block, and whether a password is set.
    pub async fn start_with(
        database: Option<&str>,
        extra: &str,
        extra_http: &str,
        password: bool,
    ) -> Desk {
        let dir = tempfile::tempdir().unwrap();
        let cfg_path = pbemd::app::setup::new_game_dir(&dir.path().join("g"), None).unwrap();
        let mut text = std::fs::read_to_string(&cfg_path).unwrap() + extra;
        if let Some(url) = database {
            text = text.replace("database: sqlite:pbemd.db", &format!("database: {url}"));
        }
        text.push_str("http:\n  listen: \"127.0.0.1:0\"\n");
        if password {
            let hash = pbemd::app::desk::hash_password(PASSWORD).unwrap();
            text.push_str(&format!("  gm_password_hash: \"{hash}\"\n"));
        }
        text.push_str(extra_http);
        std::fs::write(&cfg_path, text).unwrap();
        let cfg = Config::load(&cfg_path).unwrap();
        let clock = Arc::new(FixedClock::new(common::at(TUESDAY)));
        let app = Arc::new(App::open(cfg, clock.clone()).await.unwrap());
        pbemd::app::setup::init(&app, common::at(TUESDAY), false)
            .await
            .unwrap();
        let addr = serve(app.clone()).await;
        let inbox = Maildir::open(&cfg_path.parent().unwrap().join("inbox")).unwrap();
        Desk {
            dir,
            app,
            clock,
            addr,
            inbox,
            seq: AtomicU64::new(0),
        }
    }

    pub fn config_path(&self) -> std::path::PathBuf {
        self.dir.path().join("g").join("pbemd.yaml")
    }

    /// A player mails the game.
    pub fn send(&self, from: &str, subject: &str, body: &str) {
        let n = self.seq.fetch_add(1, Ordering::SeqCst);
        let raw = common::mail(from, subject, body, &format!("d{n}@players.test"));
        self.inbox.drop_in(n, &raw).unwrap();
    }

    /// `tick` at `when`.
    pub async fn tick(&self, when: &str) {
        self.clock.set(common::at(when));
        pbemd::app::tick::tick(&self.app).await.unwrap();
    }

    /// Every mail written to the outbox Maildir, parsed.
    pub fn outbox(&self) -> Vec<common::Sent> {
        let dir = self.dir.path().join("g").join("outbox").join("new");
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        names.sort();
        names
            .iter()
            .map(|p| common::Sent::parse(&std::fs::read(p).unwrap()))
            .collect()
    }

    /// The messages in `state`.
    pub async fn in_state(&self, state: &str) -> Vec<Message> {
        let mut c = self.app.store.conn().await.unwrap();
        messages::in_states(&mut c, &[state]).await.unwrap()
    }

    /// The audit entries of `kind`.
    pub async fn audited(&self, kind: &str) -> Vec<pbemd::store::events::Event> {
        let mut c = self.app.store.conn().await.unwrap();
        pbemd::store::events::of_kind(&mut c, kind).await.unwrap()
    }

    /// An envoy from Genogien to Afani, received Tuesday and held for the GM.
    pub async fn held_envoy(&self, body: &str) -> Message {
        self.send(
            "genogien@game.test",
            "Genogien skickar ett sändebud till Afani",
            body,
        );
        self.tick("2026-11-24T10:00:00+01:00").await;
        let held = self.in_state(messages::state::HELD).await;
        assert_eq!(held.len(), 1, "{held:?}");
        held.into_iter().next().unwrap()
    }
}

/// Serve `app`'s router on a free loopback port, with each connection's peer address
/// known (as `pbemd run` serves it).
pub async fn serve(app: Arc<App>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = pbemd::web::router(app).into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, service).await.unwrap() });
    addr
}

/// An HTTP answer.
#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The whole `Set-Cookie` line for cookie `name`.
    pub fn set_cookie(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("set-cookie"))
            .map(|(_, v)| v.as_str())
            .find(|v| v.starts_with(&format!("{name}=")))
    }

    /// The value a `Set-Cookie` gives cookie `name`.
    pub fn cookie(&self, name: &str) -> Option<String> {
        let line = self.set_cookie(name)?;
        let v = line.split(';').next()?.split_once('=')?.1;
        Some(v.to_string())
    }

    /// The first CSRF token in the page's forms.
    pub fn csrf(&self) -> String {
        let key = "name=\"csrf\" value=\"";
        let at = self.body.find(key).expect("a form with a CSRF token") + key.len();
        self.body[at..].split('"').next().unwrap().to_string()
    }
}

/// Percent-encode a form value.
pub fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A form body from pairs.
pub fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The queue page a desk action redirected to (`r`, a 303 with its one-time message in
/// the `pbemd_flash` cookie), read with the GM's session `gm` and that message.
pub async fn queue_with_flash(addr: SocketAddr, gm: &str, r: &Resp) -> Resp {
    let flash = r.cookie("pbemd_flash").expect("the action's message");
    http(
        addr,
        "GET",
        "/gm/queue",
        &format!("{gm}; pbemd_flash={flash}"),
        None,
        &[],
    )
    .await
}

/// One HTTP/1.1 request: `cookies` as a `Cookie` header value, `body` a form.
pub async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    cookies: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> Resp {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: desk.test\r\nConnection: close\r\n");
    if !cookies.is_empty() {
        req.push_str(&format!("Cookie: {cookies}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    let body = body.unwrap_or("");
    if method == "POST" {
        req.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    parse(&raw)
}

fn parse(raw: &[u8]) -> Resp {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines.next().unwrap().split_whitespace().nth(1).unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        unchunk(body)
    } else {
        body.to_string()
    };
    Resp {
        status: status.parse().unwrap(),
        headers,
        body,
    }
}

fn unchunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// GET the login form and POST `password` with its token, from `headers` (e.g. an
/// `X-Forwarded-For`). The answer to the POST.
pub async fn try_login(addr: SocketAddr, password: &str, headers: &[(&str, &str)]) -> Resp {
    let page = http(addr, "GET", "/gm/login", "", None, headers).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let pre = page.cookie("pbemd_login").expect("the login form's cookie");
    let body = form(&[("csrf", &page.csrf()), ("password", password)]);
    let cookie = format!("pbemd_login={pre}");
    http(addr, "POST", "/gm/login", &cookie, Some(&body), headers).await
}

/// Log in with [`PASSWORD`]; the `Cookie` header value of the session.
pub async fn login(addr: SocketAddr) -> String {
    let r = try_login(addr, PASSWORD, &[]).await;
    assert_eq!(r.status, 303, "{}", r.body);
    format!(
        "pbemd_gm={}",
        r.cookie("pbemd_gm").expect("a session cookie")
    )
}
