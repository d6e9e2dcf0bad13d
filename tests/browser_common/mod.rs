//! Headless Chromium (Debian's `chromium` + `chromium-driver`) driven through
//! chromedriver with fantoccini, for the web site's tests. Each test starts its own
//! chromedriver on a free loopback port and saves screenshots under
//! `target/screenshots/`. Include with
//! `#[path = "browser_common/mod.rs"] mod browser;` next to `mod common;`.
//!
//! A missing Chromium fails the test unless skipping was asked for
//! (`PBEMD_SKIP_SERVER_TESTS=1`, never under `CI=true`), like every server test.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A headless browser session; `finish` ends it (and chromedriver with it).
pub struct Browser {
    pub client: Client,
    driver: Child,
    /// chromedriver's and Chromium's `TMPDIR`: the profile Chromium makes for each
    /// session lands here and goes with it, even when a test panics midway.
    _tmp: tempfile::TempDir,
}

impl Browser {
    /// A new browser, or `None` when Chromium is missing and skipping was asked for.
    pub async fn start() -> Option<Browser> {
        if !Path::new(CHROMIUM).exists() || !Path::new(CHROMEDRIVER).exists() {
            crate::common::servers::missing(
                "Chromium and its driver (Debian packages chromium, chromium-driver)",
            );
            return None;
        }
        let tmp = tempfile::tempdir().expect("a temporary folder for Chromium");
        let (driver, port) = start_driver(tmp.path());
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            serde_json::json!({
                "binary": CHROMIUM,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1280,1000"],
            }),
        );
        // fantoccini's HTTP client goes through rustls, which needs one crypto provider.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = ClientBuilder::rustls()
            .expect("TLS roots")
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("connect to chromedriver");
        Some(Browser {
            client,
            driver,
            _tmp: tmp,
        })
    }

    /// Save a screenshot of the current page as `target/screenshots/<name>.png`.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.client.screenshot().await.expect("take a screenshot");
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap();
        path
    }

    /// The text of the whole page as the browser shows it.
    pub async fn page_text(&self) -> String {
        let body = self
            .client
            .find(fantoccini::Locator::Css("body"))
            .await
            .expect("the page has a body");
        body.text().await.expect("read the page's text")
    }

    /// Close the browser and stop chromedriver.
    pub async fn finish(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
    }
}

/// `target/screenshots/` of this build.
pub fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("screenshots")
}

/// Serve `app`'s whole HTTP router (webhook, site) on a free loopback port.
pub async fn serve(app: Arc<pbemd::app::App>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = pbemd::web::router(app);
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    addr
}

/// Start chromedriver on a port the kernel picks (`--port=0`) and read the port
/// from its "started successfully on port N" line. Chromium, its child, keeps its
/// throwaway profile under `tmp`. Picking a free port first and
/// handing it over races with every other test doing the same; this does not.
fn start_driver(tmp: &Path) -> (Child, u16) {
    use std::io::{BufRead, BufReader};
    let mut driver = Command::new(CHROMEDRIVER)
        .arg("--port=0")
        .env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let stdout = driver.stdout.take().expect("chromedriver's stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    // Reads until the ready line, then keeps draining so chromedriver never blocks
    // on a full pipe.
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        for line in lines.by_ref().map_while(Result::ok) {
            if let Some(port) = ready_port(&line) {
                let _ = tx.send(port);
                break;
            }
        }
        drop(tx);
        for _ in lines {}
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(port) => (driver, port),
        Err(e) => {
            let _ = driver.kill();
            let status = driver.wait().ok();
            panic!("chromedriver did not say it was ready ({e}; exit status {status:?})");
        }
    }
}

/// The port in chromedriver's "ChromeDriver was started successfully on port N." line.
fn ready_port(line: &str) -> Option<u16> {
    let rest = line.split("started successfully on port ").nth(1)?;
    rest.trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()
}
