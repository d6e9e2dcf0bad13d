//! README, The players' pages and the trade board, in headless Chromium: a realm's
//! link from its Monday form shows its own form and map and nothing of another's, and
//! the trade board shows a wish changed in a weekend form once the weekend is
//! resolved. Screenshots: `player_form`, `player_map`, `trade_board`.

#[path = "browser_common/mod.rs"]
mod browser;
mod common;

use std::sync::Arc;

use fantoccini::Locator;
use pbemd::app::App;
use pbemd::clock::FixedClock;
use pbemd::config::Config;
use pbemd::transport::maildir::Maildir;

const PUBLIC: &str = "http://game.test";
const TUESDAY: &str = "2026-11-24T09:00:00+01:00";
const SATURDAY: &str = "2026-11-28T10:00:00+01:00";
const DEADLINE: &str = "2026-11-29T15:00:00+01:00";
const MONDAY: &str = "2026-11-30T12:00:00+01:00";

/// A demo game with a public site, driven in-process with a fixed clock.
struct Site {
    _dir: tempfile::TempDir,
    game: std::path::PathBuf,
    app: Arc<App>,
    clock: Arc<FixedClock>,
    inbox: Maildir,
}

impl Site {
    async fn start() -> Site {
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("g");
        let cfg_path = pbemd::app::setup::new_game_dir(&game, None).unwrap();
        let text = std::fs::read_to_string(&cfg_path).unwrap()
            + &format!("http: {{listen: \"127.0.0.1:0\", public_url: \"{PUBLIC}\"}}\n");
        std::fs::write(&cfg_path, text).unwrap();
        let cfg = Config::load(&cfg_path).unwrap();
        let clock = Arc::new(FixedClock::new(common::at(TUESDAY)));
        let app = Arc::new(App::open(cfg, clock.clone()).await.unwrap());
        pbemd::app::setup::init(&app, common::at(TUESDAY), false)
            .await
            .unwrap();
        let inbox = Maildir::open(&game.join("inbox")).unwrap();
        Site {
            _dir: dir,
            game,
            app,
            clock,
            inbox,
        }
    }

    fn send(&self, n: u64, from: &str, subject: &str, body: &str) {
        let raw = common::mail(from, subject, body, &format!("b{n}@players.test"));
        self.inbox.drop_in(n, &raw).unwrap();
    }

    async fn tick(&self, when: &str) {
        self.clock.set(common::at(when));
        pbemd::app::tick::tick(&self.app).await.unwrap();
    }

    /// The link in the latest Monday form mailed to `addr`.
    fn form_link(&self, addr: &str) -> String {
        let mut forms: Vec<common::Sent> = std::fs::read_dir(self.game.join("outbox/new"))
            .unwrap()
            .map(|e| common::Sent::parse(&std::fs::read(e.unwrap().path()).unwrap()))
            .filter(|m| m.to_is(addr) && m.text.contains("/realm/login?token="))
            .collect();
        forms.sort_by_key(|m| m.date);
        let text = &forms.last().expect("a Monday form with a link").text;
        let at = text.find(PUBLIC).unwrap();
        text[at..].split_whitespace().next().unwrap().to_string()
    }
}

#[tokio::test]
async fn a_realms_link_shows_its_own_form_and_map_and_nothing_of_another() {
    let Some(b) = browser::Browser::start().await else {
        return;
    };
    let s = Site::start().await;
    s.tick(DEADLINE).await;
    s.tick(MONDAY).await;
    let link = s.form_link("afani@game.test");
    let addr = browser::serve(s.app.clone()).await;
    let link = link.replace(PUBLIC, &format!("http://{addr}"));
    b.client.goto(&link).await.unwrap();
    let url = b.client.current_url().await.unwrap();
    let form_text = b.page_text().await;
    b.screenshot("player_form").await;
    b.client
        .goto(&format!("http://{addr}/realm?realm=Genogien"))
        .await
        .unwrap();
    let asked_for_other = b.page_text().await;
    b.client
        .goto(&format!("http://{addr}/realm/map"))
        .await
        .unwrap();
    let svgs = b
        .client
        .find_all(Locator::Css("div.map svg"))
        .await
        .unwrap()
        .len();
    let map_text = b.page_text().await;
    b.screenshot("player_map").await;
    b.finish().await;
    assert_eq!(url.path(), "/realm", "the link leads to the realm's page");
    assert!(
        form_text.contains("Results and weekend form for Afani"),
        "{form_text}"
    );
    assert!(!form_text.contains("Genogien formulär"), "{form_text}");
    assert!(!form_text.contains("helgformulär för Genogien"));
    assert!(asked_for_other.contains("Results and weekend form for Afani"));
    assert!(!asked_for_other.contains("helgformulär för Genogien"));
    assert_eq!(svgs, 2, "both dimensions drawn inline");
    assert!(map_text.contains("Afani – map"), "{map_text}");
}

#[tokio::test]
async fn the_trade_board_shows_a_changed_wish_after_the_weekend() {
    let Some(b) = browser::Browser::start().await else {
        return;
    };
    let s = Site::start().await;
    s.send(
        1,
        "afani@game.test",
        "Afani form",
        "WISHLIST buy stone water sell iron fire",
    );
    s.tick(SATURDAY).await;
    let addr = browser::serve(s.app.clone()).await;
    b.client
        .goto(&format!("http://{addr}/board?lang=en"))
        .await
        .unwrap();
    let before = afani_row(&b).await;
    s.tick(DEADLINE).await;
    s.tick(MONDAY).await;
    b.client
        .goto(&format!("http://{addr}/board?lang=en"))
        .await
        .unwrap();
    let after = b.page_text().await;
    let afani_row = afani_row(&b).await;
    b.screenshot("trade_board").await;
    b.finish().await;
    assert!(
        before.contains("iron, timber") && before.contains("gold, cloth"),
        "the scenario's wishes before the weekend: {before}"
    );
    assert!(
        afani_row.contains("stone, water") && afani_row.contains("iron, fire"),
        "{afani_row}\n{after}"
    );
    assert!(after.contains("Round"), "{after}");
    assert!(after.contains("Weekend form deadline"), "{after}");
}

/// The text of Afani's row on the board.
async fn afani_row(b: &browser::Browser) -> String {
    b.client
        .find(Locator::XPath("//tr[td[1]='Afani']"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}
