//! docs/gm/web.md, the players' pages and the trade board, in headless Chromium: a realm's
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
use pbemd::game::state::Dimension;
use pbemd::render::map::{self, Viewer};
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

/// The texts of the map pictures on the page as the browser read the inline SVG: the
/// title, the rulers, the numbers and the legend, which names each realm that owns
/// anything drawn.
async fn svg_texts(b: &browser::Browser) -> Vec<String> {
    let v = b
        .client
        .execute(
            "return Array.from(document.querySelectorAll('div.map svg text'))\
             .map(t => t.textContent);",
            vec![],
        )
        .await
        .unwrap();
    serde_json::from_value(v).unwrap()
}

#[tokio::test]
async fn a_realms_link_shows_its_own_form_and_map_and_nothing_of_another() {
    let Some(b) = browser::Browser::start().await else {
        return;
    };
    let s = Site::start().await;
    s.tick(DEADLINE).await;
    s.tick(MONDAY).await;
    // Genogien's army 1 is on the GM's map and Afani sees nothing of Genogien: no land,
    // city or group of Genogien's is in Afani's picture's data (whose legend names every
    // realm owning something drawn).
    let gs = {
        let mut c = s.app.store.conn().await.unwrap();
        s.app.state(&mut c).await.unwrap().1
    };
    let army = gs.army("Genogien", 1).expect("Genogien's army 1");
    let gm = map::view(&gs, Viewer::Gm, army.dimension);
    assert!(gm.armies.iter().any(|a| a.owner == "Genogien" && a.id == 1));
    for d in [Dimension::Normal, Dimension::Evil] {
        let v = map::view(&gs, Viewer::Realm("Afani"), d);
        assert!(!v.realms.iter().any(|r| r == "Genogien"), "{d:?}: {v:?}");
        assert!(!v.armies.iter().any(|a| a.owner == "Genogien"), "{d:?}");
    }
    let afani_link = s.form_link("afani@game.test");
    let genogien_link = s.form_link("genogien@game.test");
    let addr = browser::serve(s.app.clone()).await;
    let local = |link: &str| link.replace(PUBLIC, &format!("http://{addr}"));
    b.client.goto(&local(&afani_link)).await.unwrap();
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
    let afani_svg = svg_texts(&b).await;
    b.screenshot("player_map").await;
    b.client
        .goto(&format!("http://{addr}/realm/map?realm=Genogien"))
        .await
        .unwrap();
    let afani_asking_svg = svg_texts(&b).await;
    // The same browser through Genogien's own link: its map names it.
    b.client.goto(&local(&genogien_link)).await.unwrap();
    b.client
        .goto(&format!("http://{addr}/realm/map"))
        .await
        .unwrap();
    let genogien_svg = svg_texts(&b).await;
    b.finish().await;
    assert_eq!(url.path(), "/realm", "the link leads to the realm's page");
    assert!(
        form_text.contains("Results and weekend form for Afani"),
        "{form_text}"
    );
    assert!(!form_text.contains("helgformulär för Genogien"));
    assert!(asked_for_other.contains("Results and weekend form for Afani"));
    assert!(!asked_for_other.contains("helgformulär för Genogien"));
    // The demo has no Evil: its one dimension is drawn, and no empty Evil section.
    assert_eq!(svgs, 1, "the map drawn inline, without an Evil dimension");
    assert!(map_text.contains("Afani – map"), "{map_text}");
    let names = |texts: &[String], realm: &str| texts.iter().any(|t| t == realm);
    let mentions = |texts: &[String], realm: &str| texts.iter().any(|t| t.contains(realm));
    assert!(
        names(&afani_svg, "Afani"),
        "the legend names Afani: {afani_svg:?}"
    );
    assert!(!mentions(&afani_svg, "Genogien"), "{afani_svg:?}");
    assert!(
        !mentions(&afani_asking_svg, "Genogien"),
        "{afani_asking_svg:?}"
    );
    assert_eq!(
        afani_asking_svg, afani_svg,
        "Afani's picture whatever the URL"
    );
    assert!(
        names(&genogien_svg, "Genogien"),
        "Genogien's own picture names it: {genogien_svg:?}"
    );
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
